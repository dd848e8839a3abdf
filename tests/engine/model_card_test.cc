// Model cards: the hub's YAML front matter, the tables from the run's records, escaping.
#include "engine/model_card.h"

#include <gtest/gtest.h>

namespace bertpt::engine {
namespace {

ModelCard example() {
  ModelCard c;
  c.title = "bert-mini pre-trained with bertpt";
  c.summary = "A test card.";
  c.pipeline_tag = "fill-mask";
  c.tags = {"bert", "bertpt"};
  c.config.num_hidden_layers = 4;
  c.config.hidden_size = 256;
  c.config.num_attention_heads = 4;
  c.config.intermediate_size = 1024;
  c.config.vocab_size = 8000;
  c.parameters = 11170000;
  c.data = {{"dataset", "runs/a|b"}};
  c.training = {{"steps", "600 of 600"}};
  c.results = {{"held-out MLM loss", "5.25"}};
  c.example_input = "Say \"[MASK]\".";
  return c;
}

TEST(ModelCard, FrontMatterHasTheHubFields) {
  const std::string md = render_model_card(example());
  ASSERT_EQ(md.rfind("---\nlibrary_name: transformers\npipeline_tag: fill-mask\ntags:\n- bert\n- bertpt\n", 0), 0u)
      << md;
  const size_t end = md.find("\n---\n", 4);
  ASSERT_NE(end, std::string::npos);
  EXPECT_NE(md.substr(0, end).find("# license:"), std::string::npos);  // left for the user, as a YAML comment
  EXPECT_NE(md.find("\n# bert-mini pre-trained with bertpt\n", end), std::string::npos);
}

TEST(ModelCard, TablesComeFromTheRecords) {
  const std::string md = render_model_card(example());
  EXPECT_NE(md.find("| layers / hidden / heads / intermediate | 4 / 256 / 4 / 1024 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| parameters | 11,170,000 |"), std::string::npos);
  EXPECT_NE(md.find("| dataset | runs/a\\|b |"), std::string::npos);  // '|' escaped inside a cell
  EXPECT_NE(md.find("## Results"), std::string::npos);
  EXPECT_NE(md.find("| held-out MLM loss | 5.25 |"), std::string::npos);
  EXPECT_NE(md.find("fill_mask(\"Say \\\"[MASK]\\\".\")"), std::string::npos);  // a valid Python literal
}

TEST(ModelCard, EmptySectionsAreLeftOut) {
  ModelCard c = example();
  c.results.clear();
  c.pipeline_tag = "text-classification";
  const std::string md = render_model_card(c);
  EXPECT_EQ(md.find("## Results"), std::string::npos);
  EXPECT_NE(md.find("pipeline(\"text-classification\""), std::string::npos);
}

TEST(ModelCard, Formatting) {
  EXPECT_EQ(card_count(1234567), "1,234,567");
  EXPECT_EQ(card_duration(42), "42 s");
  EXPECT_EQ(card_duration(3725), "1 h 02 min");
  EXPECT_EQ(card_duration(125), "2 min 05 s");
  EXPECT_EQ(card_dollars(12.345), "$12.35");
}

}  // namespace
}  // namespace bertpt::engine
