package explorer

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
)

// The memory a request of 14 MB costs to decode (one uploaded file of 14 MB;
// the issue saw six such bodies, decoded before any bound, take 2.4 GB):
// -benchmem's B/op against the body's bytes.
func BenchmarkDecodeRequest14MB(b *testing.B) {
	body, _ := json.Marshal(map[string]any{"flags": map[string]string{"kind": "1f1b"},
		"files": map[string]any{"schedule": map[string]string{"name": "big.csv", "text": strings.Repeat("0F0,0B0\n", 14<<20/8)}}})
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		req := httptest.NewRequest("POST", "http://127.0.0.1/api/simulate", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if _, re := decodeRequest(httptest.NewRecorder(), req); re != nil {
			b.Fatal(re)
		}
	}
}
