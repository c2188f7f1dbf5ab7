package charlm

import "fmt"

// TrainingCharacters returns how many of a corpus's n characters the
// model trains on: ⌊9n/10⌋, the first nine tenths, as nanoGPT's
// character-level Shakespeare splits its text. The remaining ⌈n/10⌉
// characters, the end of the text, are held out for ValidationLoss.
func TrainingCharacters(n int) int { return 9 * n / 10 }

// CorpusCharacters returns the smallest corpus length n whose training
// split holds exactly training characters: ⌈10·training/9⌉.
func CorpusCharacters(training int) int { return (10*training + 8) / 9 }

// trainingCut returns where a corpus of n characters splits into its
// training and held-out parts, and checks that each holds at least one
// window of perBatch characters and the successor of its last character.
func trainingCut(n, perBatch int) (int, error) {
	cut := TrainingCharacters(n)
	if cut < perBatch+1 || n-cut < perBatch+1 {
		// The smallest corpus whose held-out tenth holds perBatch+1
		// characters; its training part then holds nine times as many.
		need := 10*(perBatch+1) - 9
		return 0, fmt.Errorf("%d characters, need at least %d: %d to train on and %d held out, each at least Batch·SeqLen + 1 = %d",
			n, need, TrainingCharacters(need), need-TrainingCharacters(need), perBatch+1)
	}
	return cut, nil
}
