"""bench_smoke_test: a benchmark's smoke test, one shared script for all."""

# The characters an extended regex gives a meaning to.
_REGEX_SPECIALS = ["\\", ".", "^", "$", "*", "+", "?", "(", ")", "[", "]", "{", "}", "|"]

def regex_literal(text):
    """The extended regex that matches `text` as written."""
    for c in _REGEX_SPECIALS:
        text = text.replace(c, "\\" + c)
    return text

def _shell_word(text):
    # A test's args are Make-variable expanded, then split like a Bourne
    # shell's words: `$` doubled, the whole in single quotes.
    return "'" + text.replace("$", "$$").replace("'", "'\\''") + "'"

def bench_smoke_test(name, benchmark, rows = [], counts = {}, postgres = False, postgres_flag = "--url", size = "small"):
    """Runs `benchmark --quick`: it must exit 0 and print every row.

    No figure is checked: they depend on the machine. See
    bench/support/smoke_test.sh.

    Args:
      name: the test's name.
      benchmark: the benchmark's cc_binary.
      rows: extended regexes; each must match some line of the output.
      counts: {extended regex: how many lines must match it}.
      postgres: runs on the PostgreSQL tests' server, CAIRN_TEST_POSTGRES_URL
        (--url); skips without one unless CAIRN_TEST_POSTGRES_REQUIRED=1.
      postgres_flag: the benchmark's flag that takes the server's URL.
      size: the test's size.
    """
    args = ["$(location %s)" % benchmark]
    if postgres:
        args += ["--postgres", postgres_flag]
    for row in rows:
        args += ["--row", _shell_word(row)]
    for pattern, count in counts.items():
        args += ["--count", str(count), _shell_word(pattern)]
    native.sh_test(
        name = name,
        size = size,
        srcs = ["//bench/support:smoke_test.sh"],
        args = args,
        data = [benchmark],
    )

def ratio_row(name):
    """A row `name` followed by its three figures: cairn, the peer, ratio."""
    return regex_literal(name + " ") + "(.* )?[0-9]+ +[0-9]+ +[0-9]+\\.[0-9]+x "
