def task_func(text):
    """Count words, case-insensitively, ignoring punctuation."""
    counts = {}
    for word in text.split():
        counts[word] = counts.get(word, 0) + 1
    return counts
