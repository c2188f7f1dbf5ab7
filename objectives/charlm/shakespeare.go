package charlm

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"sync"
)

// tinyShakespeareGzip is data/tinyshakespeare.txt.gz (provenance in
// data/README.md).
//
//go:embed data/tinyshakespeare.txt.gz
var tinyShakespeareGzip []byte

// TinyShakespeareBytes is the length of the Tiny Shakespeare text: all its
// 65 distinct characters are ASCII, so it is also its character count.
const TinyShakespeareBytes = 1_115_394

// tinyShakespeare decompresses the shipped text once.
var tinyShakespeare = sync.OnceValues(func() ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(tinyShakespeareGzip))
	if err != nil {
		return nil, err
	}
	text, err := io.ReadAll(io.LimitReader(r, TinyShakespeareBytes+1))
	if err != nil {
		return nil, err
	}
	if len(text) != TinyShakespeareBytes {
		return nil, fmt.Errorf("%d bytes, want %d", len(text), TinyShakespeareBytes)
	}
	return text, r.Close()
})

// TinyShakespeare returns a copy of the Tiny Shakespeare corpus
// (data/README.md), the LM's default: 1,115,394 characters of
// Shakespeare's plays, 65 of them distinct. The text is compiled into the
// package, compressed, so nothing is read or downloaded at run time; it
// panics only if that embedded copy is corrupt, which its tests rule out.
func TinyShakespeare() []byte {
	text, err := tinyShakespeare()
	if err != nil {
		panic("charlm: the embedded data/tinyshakespeare.txt.gz is corrupt: " + err.Error())
	}
	return bytes.Clone(text)
}
