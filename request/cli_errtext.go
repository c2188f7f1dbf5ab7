package request

import (
	"errors"
	"github.com/pipelab/pipelab/fault"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Errors are printed in the user's words: "pipelab CMD: " and what was
// wrong, never the name of the Go package that found it. Packages prefix
// their errors ("sim: variability: ...") so that a caller of the library
// can tell where they come from; the command line drops those prefixes.

// GoPackages are the names of the module's packages (the last element of
// each import path but cmd/pipelab's), whose prefixes an error message
// loses; TestGoPackagesListed checks the list against the source tree.
var GoPackages = []string{
	"atomicfile", "budget", "charlm", "cost", "costspec", "cputime", "experiments", "explorer", "explorer-wasm", "fault", "inputfile", "memhttp",
	"objectives", "optim", "pipeline", "request", "results", "sim", "suggest", "sweep", "tablesequal", "train", "tune", "validation", "vec",
}

// UserText returns err's message without package prefixes: at its start
// and after each ": " that separates a context from its cause. A missing
// folder of an output file is named as the folder, not as the temporary
// file the write went through.
func UserText(err error) string {
	msg := err.Error()
	if dir, ok := MissingFolder(err); ok {
		// The temporary file the write went through is no name of the
		// user's: the folder is.
		var pe *fs.PathError
		errors.As(err, &pe)
		msg = strings.Replace(msg, pe.Error(), "folder "+dir+" does not exist", 1)
		if !strings.Contains(msg, dir) {
			msg = "folder " + dir + " does not exist"
		}
	}
	return dropPackagePrefixes(msg)
}

// dropPackagePrefixes removes "pkg: " for every package of GoPackages at
// the start of msg and after every ": " in it.
func dropPackagePrefixes(msg string) string {
	parts := strings.Split(msg, ": ")
	out := parts[:0]
	for i, p := range parts {
		if i < len(parts)-1 && isPackage(p) {
			continue
		}
		out = append(out, p)
	}
	return strings.Join(out, ": ")
}

func isPackage(word string) bool {
	for _, p := range GoPackages {
		if word == p {
			return true
		}
	}
	return false
}

// withoutPackage returns err with its message in the user's words
// (UserText), keeping it wrapped for errors.Is and errors.As.
func withoutPackage(err error) error {
	if err == nil {
		return nil
	}
	return userError{err}
}

type userError struct{ error }

func (u userError) Error() string { return UserText(u.error) }
func (u userError) Unwrap() error { return u.error }

// MissingFolder reports the folder that does not exist when err is a
// failed creation of a file (an output's temporary file) in it.
func MissingFolder(err error) (string, bool) {
	var pe *fs.PathError
	if !errors.As(err, &pe) || !errors.Is(err, fs.ErrNotExist) || (pe.Op != "open" && pe.Op != "createtemp") {
		return "", false
	}
	dir := filepath.Dir(pe.Path)
	if _, statErr := os.Stat(dir); statErr == nil || !errors.Is(statErr, fs.ErrNotExist) {
		return "", false
	}
	return dir, true
}

// CheckOutputFolder refuses an output file whose folder does not exist,
// before any work is done; flag names the flag.
func CheckOutputFolder(flag, path string) error {
	if path == "" {
		return nil
	}
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fault.Bad(errors.New("--" + flag + " " + path + ": folder " + dir + " does not exist"))
	case err != nil:
		return fault.Bad(errors.New("--" + flag + " " + path + ": " + UserText(err)))
	case !st.IsDir():
		return fault.Bad(errors.New("--" + flag + " " + path + ": " + dir + " is not a folder"))
	}
	return nil
}
