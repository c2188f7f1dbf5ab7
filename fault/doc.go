// Package fault is pipelab's one set of error kinds: BadInput (the
// caller's input is wrong: a flag, a spec key, a file's cell), NotFound (a
// file or folder the input names is not there), TooLarge (a size refused
// before it is allocated, over the memory limit) and everything else, a
// run that failed. Every package marks its errors with these (errors.Is),
// the command line maps them to its exit status in one place (2 for the
// three kinds, 1 for a failure) and the server to its HTTP status in one
// place (400, 404, 413; 422 for a failure).
package fault
