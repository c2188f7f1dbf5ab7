package main

import (
	"fmt"
	"os"

	"pipelab/pipeline"
)

// readScheduleFile reads the PyTorch schedule CSV that --schedule names.
// A file that cannot be opened or parsed is bad input (exit 2), named by
// the flag.
func readScheduleFile(path string) (*pipeline.Table, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, badInput{fmt.Errorf("--schedule: %w", err)}
	}
	defer file.Close()
	t, err := pipeline.ReadCSV(file, path)
	if err != nil {
		return nil, badInput{err}
	}
	return t, nil
}
