package pipeline

import "bytes"

// ValidateTorch checks t's PyTorch CSV (WriteCSV) as PyTorch's loader
// checks a schedule file (_validate_schedule): ValidateCSV of the file read
// back, named name, with every microbatch on every stage. ReadCSV infers
// the disjoint pipelines of a file such as Chimera's, and pipelab check and
// simulate then take it, but PyTorch has no routes and refuses it: each of
// Chimera's pipelines forwards only its own microbatches on a stage.
func ValidateTorch(t *Table, name string) error {
	var b bytes.Buffer
	if err := WriteCSV(&b, t); err != nil {
		return err
	}
	read, err := ReadCSV(&b, name)
	if err != nil {
		return err
	}
	read.Routes, read.MicrobatchRoute = nil, nil
	return ValidateCSV(read, name)
}
