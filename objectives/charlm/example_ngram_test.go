package charlm_test

import (
	"fmt"

	"github.com/pipelab/pipelab/objectives/charlm"
)

// The count models of the shipped text: the held-out losses an LM's
// validation loss is read against (an LM below the trigram predicts from
// more than two characters of context).
func ExampleCountModelLosses() {
	c, err := charlm.CountModelLosses(charlm.TinyShakespeare())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("unigram %.4f, bigram %.4f, trigram %.4f nats over %d held-out characters\n", c.Unigram, c.Bigram, c.Trigram, c.Predicted)
	// Output:
	// unigram 3.3473, bigram 2.4858, trigram 2.0492 nats over 111538 held-out characters
}
