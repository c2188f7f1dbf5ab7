# An independent computation of charlm.CountModelLosses on the shipped
# text (objectives/charlm/ngram.go), for ngram_test.go: the same
# definitions written with Python's collections.Counter over the decoded
# string. Run: python3 testdata/count_models.py (from objectives/charlm).
import collections, gzip, math

t = gzip.open("data/tinyshakespeare.txt.gz").read().decode()
cut = 9 * len(t) // 10
tr, ho = t[:cut], t[cut:]
v = len(set(t))
uni = collections.Counter(tr)
bi = collections.Counter(zip(tr, tr[1:]))
tri = collections.Counter(zip(tr, tr[1:], tr[2:]))
n1 = collections.Counter(tr[:-1])                 # contexts followed by a character
n2 = collections.Counter(zip(tr[:-2], tr[1:-1]))
t1 = collections.Counter(h for (h, _) in bi)      # distinct successors
t2 = collections.Counter((a, b) for (a, b, _) in tri)

def p1(z):
    return (uni[z] + 1) / (len(tr) + v)

def p2(y, z):
    if n1[y] == 0:
        return p1(z)
    return (bi[(y, z)] + t1[y] * p1(z)) / (n1[y] + t1[y])

def p3(x, y, z):
    if n2[(x, y)] == 0:
        return p2(y, z)
    return (tri[(x, y, z)] + t2[(x, y)] * p2(y, z)) / (n2[(x, y)] + t2[(x, y)])

k = len(ho) - 2
for name, f in [("unigram", lambda x, y, z: p1(z)), ("bigram", lambda x, y, z: p2(y, z)), ("trigram", p3)]:
    print(name, repr(sum(-math.log(f(ho[i - 2], ho[i - 1], ho[i])) for i in range(2, len(ho))) / k))
print("predicted", k)
