//go:build !amd64 || purego

package charlm

// scoresVector does nothing where there is no vector kernel.
func (a attention) scoresVector(head, seq []float64, h int) bool { return false }

// weighVector does nothing where there is no vector kernel.
func (a attention) weighVector(c attentionCache, b, h int) bool { return false }

// backwardVector does nothing where there is no vector kernel.
func (a attention) backwardVector(s attentionScratch, c attentionCache, b, h int) bool { return false }
