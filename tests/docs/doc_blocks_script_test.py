"""tools/doc_blocks.py: which blocks it keeps, what it runs, and that errors point back at the Markdown."""
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.environ.get("TEST_SRCDIR", "."), os.environ.get("TEST_WORKSPACE", ""), "tools",
                      "doc_blocks.py")

DOC = """# A doc

```cpp
#include "frontend/nn/nn.h"
tg::Tensor a = tg::Tensor::ones({2});
```

```sh
echo not C++
```

<!-- doc-test: compile-only -->
```cpp
tg::Tensor b = tg::Tensor::ones({3});
```

<!-- doc-test: skip (shows a mistake on purpose) -->
```cpp
this is not C++
```

<!-- doc-test: given
tg::Tensor c = tg::Tensor::ones({4});
-->
```cpp
tg::Tensor d = c + 1;
```
"""


def generate(text):
    with tempfile.TemporaryDirectory() as tmp:
        md = os.path.join(tmp, "doc.md")
        with open(md, "w") as f:
            f.write(text)
        out = os.path.join(tmp, "out.cc")
        proc = subprocess.run([sys.executable, SCRIPT, "--out", out, md], capture_output=True, text=True)
        if proc.returncode != 0:
            return None, proc.stderr
        with open(out) as f:
            return f.read(), proc.stderr


class DocBlocksTest(unittest.TestCase):
    def test_modes(self):
        cc, err = generate(DOC)
        self.assertIsNotNone(cc, err)
        self.assertIn('#include "frontend/nn/nn.h"', cc.split("\n\n")[0])  # hoisted
        self.assertIn("tg::Tensor a =", cc)
        self.assertIn("tg::Tensor b =", cc)
        self.assertNotIn("this is not C++", cc)
        self.assertNotIn("echo", cc)
        self.assertLess(cc.index("tg::Tensor c ="), cc.index("tg::Tensor d ="))
        main = cc[cc.index("int main()"):]
        self.assertEqual(main.count("();"), 2)  # a and d run, b only compiles
        self.assertIn("2 blocks ran, 1 compile-only", main)

    def test_line_directives_point_at_the_markdown(self):
        cc, err = generate(DOC)
        self.assertIsNotNone(cc, err)
        lines = cc.split("\n")
        at = lines.index(next(l for l in lines if l.startswith("#line 4 ")))
        self.assertTrue(lines[at].endswith('doc.md"'))
        self.assertEqual(lines[at + 2], "tg::Tensor a = tg::Tensor::ones({2});")  # README line 5

    def test_given_includes_are_hoisted(self):
        cc, err = generate('<!-- doc-test: compile-only given (a reason)\n#include "frontend/onnx/onnx.h"\n'
                           "int k = 1;\n-->\n```cpp\nint j = k;\n```\n")
        self.assertIsNotNone(cc, err)
        head, body = cc.split("\n\n", 1)
        self.assertIn('#include "frontend/onnx/onnx.h"', head)
        self.assertNotIn("#include", body)
        self.assertIn("0 blocks ran, 1 compile-only", body)

    def test_skip_needs_a_reason(self):
        cc, err = generate("<!-- doc-test: skip -->\n```cpp\nx;\n```\n")
        self.assertIsNone(cc)
        self.assertIn("needs a reason", err)

    def test_a_reason_may_follow_any_marker(self):
        cc, err = generate("<!-- doc-test: compile-only (needs a model file) -->\n```cpp\nint a = 1;\n```\n\n"
                           "<!-- doc-test: run (cheap) -->\n```cpp\nint b = 2;\n```\n\n"
                           "<!-- doc-test: given (c is made here)\nint c = 3;\n-->\n```cpp\nint d = c;\n```\n\n"
                           "<!-- doc-test: compile-only (why) given\nint e = 4;\n-->\n```cpp\nint f = e;\n```\n")
        self.assertIsNotNone(cc, err)
        self.assertLess(cc.index("int c = 3;"), cc.index("int d = c;"))
        self.assertLess(cc.index("int e = 4;"), cc.index("int f = e;"))
        self.assertIn("2 blocks ran, 2 compile-only", cc)

    def test_a_reason_does_not_excuse_an_unknown_marker(self):
        cc, err = generate("<!-- doc-test: compile-olny (needs a model file) -->\n```cpp\nx;\n```\n")
        self.assertIsNone(cc)
        self.assertIn("unknown doc-test marker", err)

    def test_unknown_marker_is_an_error(self):
        cc, err = generate("<!-- doc-test: compile-olny -->\n```cpp\nx;\n```\n")
        self.assertIsNone(cc)
        self.assertIn("unknown doc-test marker", err)


if __name__ == "__main__":
    unittest.main()
