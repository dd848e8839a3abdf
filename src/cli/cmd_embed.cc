// `bertpt embed`: sentence vectors from a BERT checkpoint (src/embed/embedder.h), written as JSON
// lines (one array per text) or as one .npy matrix.
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "cli/train_commands.h"
#include "common/atomic_file.h"
#include "common/error.h"
#include "common/json_fields.h"
#include "common/progress.h"
#include "embed/embedder.h"
#include "engine/device.h"
#include "io/npy.h"

namespace bertpt::cli {

namespace {

struct EmbedFlags {
  CommonFlags common;
  embed::EmbedOptions options;
  std::string pooling, input, output, text_field = "text";
  bool normalize = false, no_normalize = false;
  int threads = 0;
};

// --input: one text per line; a .jsonl file: the --text-field of each line's object.
std::vector<std::string> read_texts(const std::string& path, const std::string& field) {
  std::ifstream in(path);
  if (!in) throw BadInput(path + ": cannot open the input file");
  const bool jsonl = path.ends_with(".jsonl");
  std::vector<std::string> texts;
  std::string line;
  for (unsigned long long n = 1; std::getline(in, line); ++n) {
    if (!jsonl) {
      texts.push_back(line);
      continue;
    }
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
      throw BadInput(at(path, n) + ": not a JSON object", "a .jsonl input has one JSON object per line");
    }
    texts.push_back(JsonFields(j, at(path, n), "", "choose the field with --text-field").str(field.c_str()));
  }
  return texts;
}

void write_vectors(const std::vector<float>& v, size_t n, int64_t dim, const std::string& output) {
  if (output.ends_with(".npy")) {
    io::write_npy_float32(output, {int64_t(n), dim}, v.data());
    return;
  }
  std::string text;
  char buf[32];
  for (size_t i = 0; i < n; ++i) {
    text += '[';
    for (int64_t d = 0; d < dim; ++d) {
      std::snprintf(buf, sizeof buf, d ? ", %.9g" : "%.9g", double(v[i * size_t(dim) + size_t(d)]));  // exact fp32
      text += buf;
    }
    text += "]\n";
  }
  if (output.empty() || output == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    write_file_atomic(output, text);
  }
}

void run_embed(EmbedFlags& f, CLI::App* cmd) {
  std::vector<std::string> texts = cmd->remaining();
  for (const auto& t : texts) {
    if (t.size() > 1 && t[0] == '-') throw BadInput("embed: unknown option " + t, "see bertpt embed --help");
  }
  if (!f.input.empty()) {
    if (!texts.empty()) throw BadInput("embed: give texts as arguments or --input FILE, not both");
    texts = read_texts(f.input, f.text_field);
  }
  if (texts.empty()) throw BadInput("embed: no text given", "bertpt embed --model DIR \"A sentence.\" or --input FILE");
  if (!f.pooling.empty()) f.options.pooling = embed::parse_pooling(f.pooling);
  if (f.normalize && f.no_normalize) throw BadInput("--normalize and --no-normalize exclude each other");
  if (f.normalize || f.no_normalize) f.options.normalize = f.normalize;
  f.options.device = engine::setup_runtime(f.threads, f.options.device);
  const embed::Embedder embedder(f.options);
  const embed::EmbedSettings& s = embedder.settings();
  Progress progress("embed", f.common.quiet);
  const std::vector<float> v = embedder.embed(
      texts, [&](size_t done) { progress.update(done, texts.size(), Progress::format_count(done) + " texts"); });
  write_vectors(v, texts.size(), s.dim, f.output);
  progress.finish(Progress::format_count(texts.size()) + " vectors of " + std::to_string(s.dim) + " (" +
                  embed::pooling_name(s.pooling) + " pooling" + (s.normalize ? ", normalized" : "") + ", max " +
                  std::to_string(s.max_seq_len) + " tokens) in " +
                  Progress::format_duration(progress.elapsed_seconds()) +
                  (f.output.empty() || f.output == "-" ? "" : " -> " + f.output));
}

}  // namespace

void add_embed_command(CLI::App& app) {
  auto f = std::make_shared<EmbedFlags>();
  auto* cmd = app.add_subcommand("embed",
                                 "One vector per text from a BERT checkpoint (a bertpt run, a classifier, or a "
                                 "sentence-transformers model such as all-MiniLM-L6-v2).\n"
                                 "Usage: bertpt embed --model DIR [options] TEXT... | --input FILE");
  cmd->add_option("--model", f->options.model, "Checkpoint directory (config.json + model.safetensors)")->required();
  // Texts are the command's extra arguments (as in fill-mask: CLI11 would split a "[a,b]" list).
  cmd->allow_extras();
  cmd->add_option("--tokenizer", f->options.tokenizer, "Tokenizer directory, when it is not in the model directory");
  cmd->add_option("--input", f->input, "Texts, one per line (a .jsonl file: the --text-field of each object)");
  cmd->add_option("--text-field", f->text_field, "Field of a .jsonl --input")->capture_default_str();
  cmd->add_option("--output", f->output,
                  "FILE.npy (an [n, dim] float32 matrix) or a file of JSON lines (default: stdout)");
  cmd->add_option("--pooling", f->pooling,
                  "mean (over the tokens) or cls (the [CLS] state); default: the model's sentence-transformers "
                  "pooling config, else mean");
  cmd->add_flag("--normalize", f->normalize,
                "L2-normalise the vectors (default: when the model's modules.json says so)");
  cmd->add_flag("--no-normalize", f->no_normalize, "Do not normalise, whatever modules.json says");
  cmd->add_option("--max-seq-len", f->options.max_seq_len,
                  "Tokens per text incl. [CLS]/[SEP], longer texts truncated (0: sentence_bert_config.json's "
                  "max_seq_length, else the model's max_position_embeddings)")
      ->capture_default_str();
  cmd->add_option("--batch-size", f->options.batch_size, "Texts per forward pass")->capture_default_str();
  cmd->add_option("--device", f->options.device, "cpu, cuda or cuda:N")->capture_default_str();
  cmd->add_option("--threads", f->threads, "CPU threads (0: all cores)")->capture_default_str();
  add_common_flags(cmd, f->common);
  cmd->callback([f, cmd] { run_embed(*f, cmd); });
}

}  // namespace bertpt::cli
