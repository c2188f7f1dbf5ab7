// Command tablesequal compares the result tables of two output folders,
// every column but the wall-clock one (runs.wall_seconds, the one that
// differs between executions by design), for the Slurm test
// (deploy/slurm/test-slurm.sh): it prints what differs and exits 1, or
// prints the row counts compared and exits 0.
//
//	go run ./deploy/slurm/tablesequal DIR_A DIR_B
package main

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"os"

	"github.com/pipelab/pipelab/results"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: tablesequal DIR_A DIR_B")
		os.Exit(2)
	}
	a, err := read(os.Args[1])
	if err == nil {
		var b *results.Tables
		if b, err = read(os.Args[2]); err == nil {
			err = compare(a, b)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tablesequal:", err)
		os.Exit(1)
	}
	fmt.Printf("tablesequal: equal: %d runs, %d curve points, %d delay rows, %d timeline events, %d schedule rows\n",
		len(a.Runs), len(a.Curves), len(a.Delays)+len(a.DelayRows), len(a.Timeline), len(a.Schedules))
}

// read reads a folder's tables with the wall-clock column zeroed.
func read(dir string) (*results.Tables, error) {
	t, err := results.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for i := range t.Runs {
		t.Runs[i].WallSeconds = 0
	}
	return t, nil
}

// compare compares table by table through gob, which, unlike ==, finds
// two NaN losses equal.
func compare(a, b *results.Tables) error {
	for _, k := range []struct {
		name string
		x, y any
	}{
		{results.RunsFile, a.Runs, b.Runs}, {results.CurvesFile, a.Curves, b.Curves},
		{results.DelaysFile, a.Delays, b.Delays}, {results.DelayRowsFile, a.DelayRows, b.DelayRows},
		{results.TimelineFile, a.Timeline, b.Timeline}, {results.SchedulesFile, a.Schedules, b.Schedules},
	} {
		if lenOf(k.x) == 0 && lenOf(k.y) == 0 {
			continue
		}
		x, err := encode(k.x)
		if err != nil {
			return err
		}
		y, err := encode(k.y)
		if err != nil {
			return err
		}
		if !bytes.Equal(x, y) {
			return fmt.Errorf("%s differs between %s and %s", k.name, os.Args[1], os.Args[2])
		}
	}
	return nil
}

func lenOf(v any) int {
	switch v := v.(type) {
	case []results.Run:
		return len(v)
	case []results.CurvePoint:
		return len(v)
	case []results.DelayStat:
		return len(v)
	case []results.DelayRow:
		return len(v)
	case []results.TimelineEvent:
		return len(v)
	case []results.ScheduleMetric:
		return len(v)
	}
	return -1
}

func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	err := gob.NewEncoder(&b).Encode(v)
	return b.Bytes(), err
}
