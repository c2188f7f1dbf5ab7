package main

import "flag"

// fileUse says what a flag's value names on the machine the command runs
// on: a file it reads, or one it writes.
type fileUse uint8

const (
	readsFile fileUse = iota + 1
	writesFile
)

// fileFlag is a flag whose value names a file. The command line takes any
// path; the server (serve.go) lets the page set a file the command reads
// only by uploading it, and one it writes never, so that no request names
// a path of the server's. keywords are the values that name no file
// (--corpus markov, --delays exact), which the page may send as they are.
type fileFlag struct {
	flag.Value
	use      fileUse
	keywords []string
}

// markFiles marks fs's flags names, defined already, as naming files of
// use; keywords are values of theirs that name none.
func markFiles(fs *flag.FlagSet, use fileUse, keywords []string, names ...string) {
	for _, n := range names {
		fl := fs.Lookup(n)
		if fl == nil {
			panic("pipelab: markFiles: no flag --" + n)
		}
		fl.Value = fileFlag{Value: fl.Value, use: use, keywords: keywords}
	}
}

// unmarked is fl with the value it had before markFiles, so that its help
// names the value's type as before ("--schedule string").
func unmarked(fl *flag.Flag) *flag.Flag {
	if ff, ok := fl.Value.(fileFlag); ok {
		c := *fl
		c.Value = ff.Value
		return &c
	}
	return fl
}
