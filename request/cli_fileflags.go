package request

import "flag"

// FileUse says what a flag's value names on the machine the command runs
// on: a file it reads, or one it writes.
type FileUse uint8

const (
	ReadsFile FileUse = iota + 1
	WritesFile
)

// FileFlag is a flag whose value names a file. The command line takes any
// path; the server (serve.go) lets the page set a file the command reads
// only by uploading it, and one it writes never, so that no request names
// a path of the server's. keywords are the values that name no file
// (--corpus markov, --delays exact), which the page may send as they are.
type FileFlag struct {
	flag.Value
	Use      FileUse
	Keywords []string
}

// MarkFiles marks fs's flags names, defined already, as naming files of
// use; keywords are values of theirs that name none.
func MarkFiles(fs *flag.FlagSet, use FileUse, keywords []string, names ...string) {
	for _, n := range names {
		fl := fs.Lookup(n)
		if fl == nil {
			panic("pipelab: MarkFiles: no flag --" + n)
		}
		fl.Value = FileFlag{Value: fl.Value, Use: use, Keywords: keywords}
	}
}

// unmarked is fl with the value it had before MarkFiles, so that its help
// names the value's type as before ("--schedule string").
func unmarked(fl *flag.Flag) *flag.Flag {
	if ff, ok := fl.Value.(FileFlag); ok {
		c := *fl
		c.Value = ff.Value
		return &c
	}
	return fl
}
