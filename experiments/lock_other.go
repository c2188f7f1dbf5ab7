//go:build !unix

package experiments

// processAlive cannot tell a dead process here: every lock counts as held.
func processAlive(int) bool { return true }
