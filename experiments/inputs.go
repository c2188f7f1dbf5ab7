package experiments

import (
	"cmp"
	"slices"

	"github.com/pipelab/pipelab/objectives/charlm"
)

// InputFile is a file a run reads: the spec key (or Run field) that names
// it and its path as the run opens it.
type InputFile struct {
	Key, Path string
}

// InputFiles lists the files the runs read, each once, ordered by key and
// path: a cost's model_config and hardware, a user's corpus (not the
// shipped or generated ones), and the data and labels of a linear
// objective. A data set's identity holds their contents (sweep.Dataset).
func InputFiles(runs []Run) []InputFile {
	seen := map[InputFile]bool{}
	var out []InputFile
	add := func(key, path string) {
		f := InputFile{key, path}
		if path != "" && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	for _, r := range runs {
		add("model_config", r.Cost.configPath())
		add("hardware", r.Cost.hardwareFile())
		if objectiveOf(r.Objective).LM && r.Corpus != charlm.CorpusTinyShakespeare && r.Corpus != charlm.CorpusMarkov {
			add("corpus", r.Corpus)
		}
		add("data", r.Data)
		add("labels", r.Labels)
	}
	slices.SortFunc(out, func(a, b InputFile) int {
		return cmp.Or(cmp.Compare(a.Key, b.Key), cmp.Compare(a.Path, b.Path))
	})
	return out
}
