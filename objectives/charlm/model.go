package charlm

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/pipelab/pipelab/objectives"
)

// Model is the character language model as an objectives.Objective. Its
// parameter vector is laid out stage by stage (Blocks), each stage's
// weights in the order of its layers.
//
// A Model owns preallocated workspaces that Loss, BatchLoss and Gradient
// reuse, so it is not safe for concurrent use: give each goroutine its own
// Clone.
type Model struct {
	cfg     Config
	vocab   []rune
	ids     []int32 // the training split
	batches int
	eval    []int
	offsets []int

	heldOut    []int32 // the validation split, never trained on
	validation []int   // the windows of heldOut ValidationLoss averages

	embed embedding
	block block
	head  head
	ws    *workspace

	// workers are the Clones that evaluate batches beside m (meanLoss),
	// made on first use: Workers-1 of them.
	workers []*Model
}

var _ objectives.Validated = (*Model)(nil)

// New builds the model for cfg on a UTF-8 corpus. The vocabulary is the
// set of distinct characters (runes) of the whole corpus. The model trains
// on the first TrainingCharacters(n) of its n characters and holds out the
// rest, the last tenth, for ValidationLoss. Batch b covers the
// b-th run of Batch·SeqLen consecutive training characters: its row r
// reads SeqLen characters starting at b·Batch·SeqLen + r·SeqLen and
// predicts each one's successor; the held-out text is cut into windows of
// the same shape. Each split must hold at least Batch·SeqLen + 1
// characters.
func New(cfg Config, corpus []byte) (*Model, error) {
	vocab, n, cut, err := prepare(cfg, corpus)
	if err != nil {
		return nil, err
	}
	all := encode(corpus, vocab, n)
	ids, heldOut := all[:cut:cut], all[cut:]
	perBatch := cfg.Batch * cfg.SeqLen
	m := &Model{
		cfg:     cfg,
		vocab:   vocab,
		ids:     ids,
		heldOut: heldOut,
		batches: (len(ids) - 1) / perBatch,
		embed:   embedding{batch: cfg.Batch, seq: cfg.SeqLen, vocab: len(vocab), embed: cfg.Embed},
		block:   newBlock(cfg.Batch, cfg.SeqLen, cfg.Embed, cfg.Heads),
		head:    head{tokens: perBatch, embed: cfg.Embed, vocab: len(vocab)},
	}
	m.eval = spread(m.batches, cfg.EvalBatches, DefaultEvalBatches)
	windows := (len(heldOut) - 1) / perBatch
	m.validation = spread(windows, cfg.ValidationBatches, windows)
	m.offsets = m.stageOffsets()
	m.ws = m.newWorkspace()
	return m, nil
}

// Check returns the error New would return for cfg and corpus, without
// allocating the model: a spec checks its runs with it before any runs.
func Check(cfg Config, corpus []byte) error {
	_, _, _, err := prepare(cfg, corpus)
	return err
}

// prepare validates cfg, reads the corpus's vocabulary and length n,
// bounds the workspaces' memory and finds where the training part ends.
func prepare(cfg Config, corpus []byte) (vocab []rune, n, cut int, err error) {
	if err := cfg.validate(); err != nil {
		return nil, 0, 0, err
	}
	vocab, n, err = vocabulary(corpus)
	if err != nil {
		return nil, 0, 0, err
	}
	if floats := workspaceFloats(cfg, len(vocab)) * float64(cfg.workers()); floats > MaxWorkspaceBytes/8 {
		return nil, 0, 0, fmt.Errorf("%w: the workspaces of %d GPT blocks at Batch = %d, SeqLen = %d, Embed = %d for %d workers need %.3g GiB, more than %d GiB",
			ErrConfig, cfg.layers(), cfg.Batch, cfg.SeqLen, cfg.Embed, cfg.workers(), floats*8/(1<<30), MaxWorkspaceBytes>>30)
	}
	cut, err = trainingCut(n, cfg.Batch*cfg.SeqLen)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%w: %w (Batch·SeqLen = %d·%d)", ErrCorpus, err, cfg.Batch, cfg.SeqLen)
	}
	return vocab, n, cut, nil
}

// spread picks k of n batches (def if k is 0, at most all of them) evenly:
// batch i·n/k for i < k.
func spread(n, k, def int) []int {
	if k == 0 {
		k = def
	}
	k = min(k, n)
	picked := make([]int, k)
	for i := range picked {
		picked[i] = i * n / k
	}
	return picked
}

// Clone returns a model on the same corpus and configuration with its own
// workspaces, for use from another goroutine. The corpus is shared
// read-only.
func (m *Model) Clone() *Model {
	c := *m
	c.ws = c.newWorkspace()
	c.workers = nil
	return &c
}

// Config returns the configuration the model was built with.
func (m *Model) Config() Config { return m.cfg }

// Vocabulary returns the characters the model predicts, in index order.
func (m *Model) Vocabulary() []rune { return slices.Clone(m.vocab) }

// EvalBatches returns the batches whose mean loss Loss reports.
func (m *Model) EvalBatches() []int { return slices.Clone(m.eval) }

// ValidationBatches returns the held-out windows whose mean loss
// ValidationLoss reports: window j covers held-out characters
// j·Batch·SeqLen .. (j+1)·Batch·SeqLen and their successors.
func (m *Model) ValidationBatches() []int { return slices.Clone(m.validation) }

// Characters returns the number of training and held-out characters.
func (m *Model) Characters() (training, heldOut int) { return len(m.ids), len(m.heldOut) }

// Dim is the number of parameters.
func (m *Model) Dim() int { return m.offsets[len(m.offsets)-1] }

// Blocks returns the S+1 stage offsets: stage s owns x[b[s]:b[s+1]].
func (m *Model) Blocks() []int { return slices.Clone(m.offsets) }

// Batches is the number of whole batches in the corpus.
func (m *Model) Batches() int { return m.batches }

// Loss returns the mean next-character cross-entropy (nats) over the
// evaluation batches (EvalBatches).
func (m *Model) Loss(x []float64) float64 {
	m.checkLength("x", x)
	return m.meanLoss(x, m.ids, m.eval)
}

// ValidationLoss returns the mean next-character cross-entropy (nats)
// over the held-out windows (ValidationBatches), text the model never
// trains on.
func (m *Model) ValidationLoss(x []float64) float64 {
	m.checkLength("x", x)
	return m.meanLoss(x, m.heldOut, m.validation)
}

// BatchLoss returns the mean next-character cross-entropy (nats) of batch
// b mod Batches at x.
func (m *Model) BatchLoss(x []float64, b int) float64 {
	m.checkLength("x", x)
	inputs, targets := m.batch(b)
	return m.forward(x, inputs, targets)
}

// Gradient writes into g the gradient of BatchLoss(x, b) with respect to
// x. The model has no gradient noise; noise is not used.
func (m *Model) Gradient(g, x []float64, b int, _ *rand.Rand) {
	m.checkLength("x", x)
	m.checkLength("g", g)
	inputs, targets := m.batch(b)
	m.forward(x, inputs, targets)
	m.backward(g, x, inputs, targets)
}

// checkLength panics on a parameter or gradient vector of the wrong
// length: that is a programming error of the caller, not bad input data.
func (m *Model) checkLength(name string, v []float64) {
	if len(v) != m.Dim() {
		panic(fmt.Sprintf("charlm: len(%s) = %d, want Dim() = %d", name, len(v), m.Dim()))
	}
}
