# Prints the C++ code block that follows the line
# "<!-- compiled: examples/readme/readme_example.h -->" in README.md.
/^<!-- compiled: examples\/readme\/readme_example\.h -->$/ { marked = 1; next }
marked && /^```cpp$/ { inside = 1; next }
inside && /^```$/ { exit }
inside { print }
