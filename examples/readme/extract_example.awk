# Prints the C++ code block that follows the line
# "<!-- compiled: examples/readme/<target> -->" in README.md, where
# <target> is given with -v target=NAME (readme_example.h by default).
BEGIN { if (target == "") target = "readme_example.h" }
$0 == "<!-- compiled: examples/readme/" target " -->" { marked = 1; next }
marked && /^```cpp$/ { inside = 1; next }
inside && /^```$/ { exit }
inside { print }
