"""Byte-level BPE as GPT-2 and Hugging Face tokenizers define it, for the scripts that make the apps'
tokenizer references (make_gpt2_golden.py, make_llm_reference.py)."""
import collections
import math


def bytes_to_unicode():
    """GPT-2's table from bytes to printable code points: printable bytes map to themselves."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(range(0xAE, 0xFF + 1))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, map(chr, cs)))


def merge_word(word, ranks):
    """HF tokenizers' BPE merge loop: the lowest-ranked adjacent pair first, leftmost on ties."""
    word = list(word)
    while len(word) > 1:
        best = min(range(len(word) - 1), key=lambda i: (ranks.get((word[i], word[i + 1]), math.inf), i))
        if (word[best], word[best + 1]) not in ranks:
            break
        word[best:best + 2] = [word[best] + word[best + 1]]
    return word


def learn_merges(words, count):
    """Up to |count| merges learned from |words| (tuples of symbols): the most frequent pair each round,
    the greatest pair on ties."""
    words = collections.Counter(words)
    merges = []
    for _ in range(count):
        pairs = collections.Counter()
        for w, c in words.items():
            for a, b in zip(w, w[1:]):
                pairs[a, b] += c
        if not pairs:
            break
        best = max(pairs, key=lambda p: (pairs[p], p))
        merges.append(best)
        ranks = {best: 0}
        words = collections.Counter({tuple(merge_word(w, ranks)): c for w, c in words.items()})
    return merges
