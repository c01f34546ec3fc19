import unittest


class TestCases(unittest.TestCase):
    def test_simple(self):
        self.assertEqual(task_func("a b a"), {"a": 2, "b": 1})

    def test_case_insensitive(self):
        self.assertEqual(task_func("Hello hello"), {"hello": 2})

    def test_punctuation(self):
        self.assertEqual(task_func("hi, hi!"), {"hi": 2})

    def test_empty(self):
        self.assertEqual(task_func(""), {})
