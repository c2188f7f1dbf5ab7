package sim

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"pipelab/pipeline"
)

// gridTimeline is a two-rank 1F1B-like grid with a split backward.
func gridTimeline() *Timeline {
	tab := &pipeline.Table{Family: "test", Placement: []int{0, 1}, Microbatches: 2, Rows: [][]pipeline.Action{
		{pipeline.F(0, 0), pipeline.F(0, 1), {}, pipeline.I(0, 0), pipeline.W(0, 0), pipeline.B(0, 1)},
		{{}, pipeline.F(1, 0), pipeline.B(1, 0), pipeline.F(1, 1), pipeline.B(1, 1)},
	}}
	return FromGrid(tab)
}

func TestSaveGantt(t *testing.T) {
	dir := t.TempDir()
	tl := gridTimeline()
	tests := []struct {
		name  string
		check func([]byte) error
	}{
		{"g.png", func(b []byte) error {
			img, err := png.Decode(bytes.NewReader(b))
			if err == nil && img.Bounds().Dx() < 100 {
				t.Errorf("PNG only %d pixels wide", img.Bounds().Dx())
			}
			return err
		}},
		{"g.SVG", func(b []byte) error {
			if !bytes.Contains(b, []byte("<svg")) {
				t.Error("SVG file has no <svg element")
			}
			return nil
		}},
	}
	for _, tt := range tests {
		path := filepath.Join(dir, tt.name)
		if err := SaveGantt(tl, path); err != nil {
			t.Fatalf("SaveGantt(%s): %v", tt.name, err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := tt.check(b); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	if err := SaveGantt(tl, filepath.Join(dir, "g.pdf")); err == nil {
		t.Error("a .pdf path was accepted")
	}
	if err := SaveGantt(tl, filepath.Join(dir, "missing", "g.png")); err == nil {
		t.Error("a path in a missing directory was accepted")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		names := []string{}
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v; want only the two charts, no temporary files", names)
	}
}

func TestGanttChunkShades(t *testing.T) {
	// V placement of 4 stages on 2 ranks is 0, 1, 1, 0 (docs/reference.md §3):
	// stages 2 and 3 are each rank's second chunk.
	tab := &pipeline.Table{Rows: make([][]pipeline.Action, 2), Placement: pipeline.VPlacement(4, 2)}
	if got := chunkOf(tab); !equalInts(got, []int{0, 0, 1, 1}) {
		t.Errorf("chunks of the V placement %v, want [0 0 1 1]", got)
	}
	blue := ganttColor(pipeline.Forward)
	if lighten(blue, 0) != blue {
		t.Error("the first chunk is not drawn in the kind's colour")
	}
	// 40% of the way to white: 0x4c + 0.4·(255 - 0x4c) = 76 + 71.6 → 147.
	if got := lighten(blue, 1).R; got != 147 {
		t.Errorf("second chunk red %d, want 147", got)
	}
}
