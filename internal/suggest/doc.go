// Package suggest is pipelab's one did-you-mean: the known name closest to
// an unknown word by edit distance, when it is close enough to be a typo.
// The command line answers unknown commands and flags with it, the spec
// reader unknown keys.
package suggest
