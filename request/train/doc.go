// Package train is "pipelab train" as a typed request: Decode reads its
// flags into a Request (the one run they build, experiments.Run, so that
// it and a sweep of the same settings replay alike), Train replays it
// (experiments.Train), passing each loss record on as it is taken, and the
// Report's JSON encoding is what train --format json prints. It is apart
// from package request because experiments imports Arrow (its tables):
// the explorer, which stays without Arrow, is handed Command by a main
// package that links this one (pipelab serve).
package train
