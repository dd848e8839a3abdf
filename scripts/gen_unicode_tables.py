#!/usr/bin/env python3
"""Generates src/tokenizer/unicode_tables_data.inc: the per-code-point tables of the BERT normalizer
and pre-tokenizer, matching the Unicode vintages Hugging Face tokenizers really uses.

Regenerate (needs Debian's `unicode-data`, which is UCD 15.0.0):
    python3 scripts/gen_unicode_tables.py [/usr/share/unicode] > src/tokenizer/unicode_tables_data.inc
then run the exhaustive peer test (tests/tokenizer/peer_unicode_test.cc), which compares every code
point against Hugging Face tokenizers (the Python package pinned in requirements/hf-peer.txt).

HF mixes three Unicode versions, and so must we (docs/hf-compat.md, "Normalizer"; each fact below was
verified code point by code point against the peer):
  * general categories (control, Mn, punctuation) come from the Rust crate unicode_categories 0.1.1,
    i.e. Unicode 8.0: a code point assigned after 8.0 is in no category. We take UCD 15 categories
    of code points whose Age is <= 8.0 and undo the few category changes made since 8.0
    (CATEGORY_8_0 below).
  * NFD (strip_accents) comes from unicode-normalization-alignments, i.e. Unicode 9.0: decompositions
    and canonical combining classes of code points with Age <= 9.0 only.
  * lowercase is Rust's char::to_lowercase, i.e. current Unicode (17.0 in the peer's build): UCD 15
    simple mappings, unconditional SpecialCasing entries, plus LOWERCASE_16_17 below.
  * whitespace is Rust's char::is_whitespace (White_Space, stable since 6.3).
"""
import sys
from collections import OrderedDict

UCD = sys.argv[1] if len(sys.argv) > 1 else '/usr/share/unicode'

# Code points (Age <= 8.0) whose general category changed after Unicode 8.0: their 8.0 category.
CATEGORY_8_0 = {
    0x1734: 'Mn',   # HANUNOO SIGN PAMUDPOD: Mn in 8.0, Mc since 14.0
    0x1885: 'Lo',   # MONGOLIAN LETTER ALI GALI BALUDA: Lo in 8.0, Mn since 9.0
    0x1886: 'Lo',   # MONGOLIAN LETTER ALI GALI THREE BALUDA
    0xA9BD: 'Mc',   # JAVANESE CONSONANT SIGN KERET: Mc in 8.0, Mn since 12.0
    0x111C9: 'Po',  # SHARADA SANDHI MARK: Po in 8.0, Mn since 11.0
    0x166D: 'Po',   # CANADIAN SYLLABICS CHI SIGN: Po in 8.0, So since 12.0
}

# Simple lowercase mappings added in Unicode 16.0 and 17.0 (not in UCD 15), as Rust's std has them.
LOWERCASE_16_17 = {0x1C89: 0x1C8A, 0xA7CB: 0x0264, 0xA7CC: 0xA7CD, 0xA7CE: 0xA7CF, 0xA7D2: 0xA7D3,
                   0xA7D4: 0xA7D5, 0xA7DA: 0xA7DB, 0xA7DC: 0x019B}
LOWERCASE_16_17.update({c: c + 0x20 for c in range(0x10D50, 0x10D66)})  # Garay (16.0)
LOWERCASE_16_17.update({c: c + 0x1B for c in range(0x16EA0, 0x16EB9)})  # Beria Erfe (17.0)

CHINESE_RANGES = [(0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
                  (0x2B740, 0x2B81F), (0x2B920, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)]

# Flag bits; keep in sync with unicode_tables.h.
F_DELETE, F_SPACE, F_CHINESE, F_PUNCT, F_MAP, F_CCC, F_HANGUL, F_NONSTARTER = 1, 2, 4, 8, 16, 32, 64, 128

MAX_CP = 0x110000


def parse_ranges(name):
    for line in open(f'{UCD}/{name}', encoding='utf-8'):
        line = line.split('#')[0].strip()
        if not line:
            continue
        fields = [f.strip() for f in line.split(';')]
        lo, _, hi = fields[0].partition('..')
        yield int(lo, 16), int(hi or lo, 16), fields[1:]


def main():
    version_line = open(f'{UCD}/DerivedAge.txt', encoding='utf-8').readline()
    if 'DerivedAge-15.0.0' not in version_line:
        sys.exit(f'gen_unicode_tables: expected UCD 15.0.0, found {version_line.strip()!r}; '
                 'CATEGORY_8_0 and LOWERCASE_16_17 are relative to 15.0')

    age = {}
    for lo, hi, f in parse_ranges('DerivedAge.txt'):
        major, minor = f[0].split('.')
        for c in range(lo, hi + 1):
            age[c] = (int(major), int(minor))
    white = set()
    for lo, hi, f in parse_ranges('PropList.txt'):
        if f[0] == 'White_Space':
            white.update(range(lo, hi + 1))

    cat, ccc, decomp, lower = {}, {}, {}, {}
    first = None
    for line in open(f'{UCD}/UnicodeData.txt', encoding='utf-8'):
        f = line.rstrip('\n').split(';')
        c = int(f[0], 16)
        if f[1].endswith('First>'):
            first = c
            continue
        span = range(first, c + 1) if f[1].endswith('Last>') else [c]
        for x in span:
            cat[x] = f[2]
            ccc[x] = int(f[3])
        if f[5] and not f[5].startswith('<'):
            decomp[c] = [int(x, 16) for x in f[5].split()]
        if f[13]:
            lower[c] = [int(f[13], 16)]
    for lo, _, f in parse_ranges('SpecialCasing.txt'):
        if len(f) >= 4 and f[3]:
            continue  # conditional mappings: char::to_lowercase ignores them
        mapping = [int(x, 16) for x in f[0].split()]
        if mapping != [lo]:
            lower[lo] = mapping
    for c, l in LOWERCASE_16_17.items():
        assert c not in lower, hex(c)
        lower[c] = [l]

    def cat8(c):
        if c in CATEGORY_8_0:
            return CATEGORY_8_0[c]
        return cat.get(c, 'Cn') if age.get(c, (99, 0)) <= (8, 0) else 'Cn'

    def ccc9(c):
        return ccc.get(c, 0) if age.get(c, (99, 0)) <= (9, 0) else 0

    def nfd9(c):
        if c in decomp and age.get(c, (99, 0)) <= (9, 0):
            return [y for x in decomp[c] for y in nfd9(x)]
        return [c]

    def is_hangul(c):
        return 0xAC00 <= c <= 0xD7A3

    def utf8(cps):
        return ''.join(chr(c) for c in cps).encode('utf-8')

    pool = bytearray(b'\0')  # offset 0: "unchanged"
    pool_index = {}

    def intern(cps, c):
        if cps == [c]:
            return 0
        b = utf8(cps)
        if b not in pool_index:
            pool_index[b] = len(pool)
            pool.append(len(b))
            pool.extend(b)
        return pool_index[b]

    flags = [0] * MAX_CP
    records = OrderedDict()  # (lower, strip, lower_strip) -> record index; 0 = identity
    records[(0, 0, 0)] = 0
    record_of = [0] * MAX_CP
    survivors_ccc = {}  # non-Mn marks that NFD can leave behind, with their combining class

    for c in range(MAX_CP):
        if 0xD800 <= c <= 0xDFFF:
            continue
        fl = 0
        k = cat8(c)
        if c in (0, 0xFFFD) or (c not in (9, 10, 13) and k in ('Cc', 'Cf', 'Co')):
            fl |= F_DELETE
        if c in (9, 10, 13) or c in white:
            fl |= F_SPACE
        if any(lo <= c <= hi for lo, hi in CHINESE_RANGES):
            fl |= F_CHINESE
        if (0x21 <= c <= 0x2F or 0x3A <= c <= 0x40 or 0x5B <= c <= 0x60 or 0x7B <= c <= 0x7E
                or k in ('Pc', 'Pd', 'Ps', 'Pe', 'Pi', 'Pf', 'Po')):
            fl |= F_PUNCT
        if is_hangul(c):
            fl |= F_HANGUL  # NFD of a syllable is computed, not stored
        else:
            lowered = [y for y in lower.get(c, [c])]
            stripped = [x for x in nfd9(c) if cat8(x) != 'Mn']
            lower_stripped = [y for x in stripped for y in lower.get(x, [x])]
            full = nfd9(c)
            if all(ccc9(x) for x in full):
                fl |= F_NONSTARTER  # does not end a run of combining marks (canonical ordering)
            # A decomposition is starters, then marks; the normalizer relies on it.
            starters = [i for i, x in enumerate(full) if ccc9(x) == 0]
            assert starters == list(range(len(starters))), hex(c)
            for x in stripped:
                if ccc9(x):
                    survivors_ccc[x] = ccc9(x)
                    fl |= F_CCC
                    # Reordering happens before lowercasing; it commutes only if marks do not case-map.
                    assert lower.get(x, [x]) == [x], hex(x)
            for x in stripped:
                for y in lower.get(x, [x]):
                    assert y == x or ccc9(y) == 0, hex(x)
            rec = (intern(lowered, c), intern(stripped, c), intern(lower_stripped, c))
            if rec != (0, 0, 0):
                fl |= F_MAP
                record_of[c] = records.setdefault(rec, len(records))
        flags[c] = fl

    assert len(pool) < 65536 and len(records) < 65536
    # Hangul syllables and jamo are Lo: the strip path keeps all jamo, none case-maps.
    for c in range(0x1100, 0x11FF + 1):
        assert c not in lower and cat8(c) != 'Mn' and ccc9(c) == 0

    # Two-level table: cp >> SHIFT selects a block of (flags | record << 8) entries.
    SHIFT = 7
    BLOCK = 1 << SHIFT
    blocks, block_index, stage1 = [], {}, []
    for b in range(MAX_CP // BLOCK):
        entries = tuple(flags[c] | (record_of[c] << 8) for c in range(b * BLOCK, (b + 1) * BLOCK))
        if entries not in block_index:
            block_index[entries] = len(blocks)
            blocks.append(entries)
        stage1.append(block_index[entries])
    assert len(blocks) < 65536

    w = sys.stdout.write
    w('// GENERATED by scripts/gen_unicode_tables.py from UCD 15.0.0 (Debian unicode-data) with the\n'
      '// version adjustments documented there. Do not edit; regenerate instead.\n')
    w(f'// {len(blocks)} blocks of {BLOCK}, {len(records)} mapping records, {len(pool)} pool bytes.\n\n')
    w(f'static_assert(kBlockShift == {SHIFT}, "unicode_tables.h and the generated data disagree");\n\n')

    def emit(name, ctype, values, per_line=16):
        w(f'const {ctype} {name}[{len(values)}] = {{\n')
        for i in range(0, len(values), per_line):
            w('  ' + ', '.join(str(v) for v in values[i:i + per_line]) + ',\n')
        w('};\n\n')

    emit('kStage1', 'uint16_t', stage1)
    emit('kStage2', 'uint32_t', [v for blk in blocks for v in blk], 12)
    emit('kRecords', 'MapRecord', ['{%d, %d, %d}' % r for r in records], 8)
    emit('kPool', 'uint8_t', list(pool), 24)
    surv = sorted(survivors_ccc.items())
    emit('kSurvivorCcc', 'CccEntry', ['{0x%X, %d}' % s for s in surv], 8)


if __name__ == '__main__':
    main()
