package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"

	"github.com/pipelab/pipelab/experiments"
)

// InputHash is an input file of a data set and the SHA-256 of its content
// when the data set was made. A file that could not be read has no hash
// and the error in Unreadable (the runs that read it fail and say why).
type InputHash struct {
	Key        string `json:"key"`
	Path       string `json:"path"`
	SHA256     string `json:"sha256,omitempty"`
	Unreadable string `json:"unreadable,omitempty"`
}

// hashInputs hashes the content of each file.
func hashInputs(files []experiments.InputFile) []InputHash {
	var out []InputHash
	for _, f := range files {
		in := InputHash{Key: f.Key, Path: f.Path}
		sum, err := hashFile(f.Path)
		if err != nil {
			in.Unreadable = err.Error()
		} else {
			in.SHA256 = sum
		}
		out = append(out, in)
	}
	return out
}

// hashFile is the hex SHA-256 of the file's content.
func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// changedInput names the first input file whose content differs between
// the data sets a and b, the one as "from another content of KEY PATH
// (sha256 A… in a, B… in b)", or "" when their inputs agree.
func changedInput(a, b Dataset) string {
	bs := map[string]InputHash{}
	for _, in := range b.Inputs {
		bs[in.Key] = in
	}
	for _, in := range a.Inputs {
		other, ok := bs[in.Key]
		if ok && other.SHA256 != in.SHA256 {
			return fmt.Sprintf("from another content of %s %s (sha256 %s, now %s)", in.Key, other.Path, short(in.SHA256), short(other.SHA256))
		}
	}
	return ""
}

// short is a hash's first 12 hex digits, or "none" for a file not read.
func short(sum string) string {
	if sum == "" {
		return "none"
	}
	return sum[:12]
}
