package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestTrainProgressEveryInterval: on a clock that moves 2 s per update,
// a 5 s interval prints at updates 3, 6 and 9 of 10 (6, 12 and 18 s in),
// and nothing before the first interval has passed.
func TestTrainProgressEveryInterval(t *testing.T) {
	clock := time.Unix(0, 0)
	var w bytes.Buffer
	p := trainProgress(&w, 5*time.Second, func() time.Time { return clock })
	for k := 1; k <= 10; k++ {
		clock = clock.Add(2 * time.Second)
		p(k, 10)
	}
	want := "pipelab train: update 3 of 10 (30%), 6 s elapsed\n" +
		"pipelab train: update 6 of 10 (60%), 12 s elapsed\n" +
		"pipelab train: update 9 of 10 (90%), 18 s elapsed\n"
	if w.String() != want {
		t.Errorf("progress:\n%s\nwant:\n%s", w.String(), want)
	}
}

// TestTrainProgressFlagKeepsOutput: train --progress writes the same
// output as without it (progress goes to stderr only, and a run of
// milliseconds says nothing there).
func TestTrainProgressFlagKeepsOutput(t *testing.T) {
	args := []string{"train", "--objective", "quadratic", "--method", "rpd", "--stages", "4", "--total-microbatches", "50", "--step-size", "0.01"}
	var out1, out2, err1, err2 bytes.Buffer
	if code := run(args, &out1, &err1); code != 0 {
		t.Fatalf("train: exit %d: %s", code, err1.String())
	}
	if code := run(append(args, "--progress"), &out2, &err2); code != 0 {
		t.Fatalf("train --progress: exit %d: %s", code, err2.String())
	}
	if out1.String() != out2.String() {
		t.Errorf("train --progress changed the output:\n%s\nvs\n%s", out2.String(), out1.String())
	}
	if strings.Contains(err2.String(), "update") {
		t.Errorf("a short run printed progress: %q", err2.String())
	}
}
