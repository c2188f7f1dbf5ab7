// Package inputfile reads the files a user hands pipelab (schedule CSVs,
// cost CSVs, profiler traces, hardware files, model configs, specs) with a
// cap on their size, so that a wrong path (/dev/zero, a multi-gigabyte log)
// is refused in one line before it is read whole, and quotes what it
// read short and escaped in error messages, so that one megabyte of junk
// in a cell gives a line, not a megabyte, and a NUL or a control
// character shows as an escape, not raw. The caps per kind of file, and
// why, are in docs/robustness.md ("Readers").
package inputfile
