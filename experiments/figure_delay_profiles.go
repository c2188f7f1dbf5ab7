package experiments

// figureDelayProfiles asks what a uniform delay misstates: the per-stage
// delay profiles of PipeDream's asynchronous 1F1B, of 2BW, and of the
// asynchronous replays of interleaved 1F1B, ZB-H1 and ZB-V tables; then
// RPD driven by the paper's uniform δ = ⌊S² − S/2⌋, by uniform delays at
// PipeDream's mean, and by PipeDream's delays replayed stage by stage,
// against PipeDream itself on the random quadratic and on the character LM
// (docs/figures.md, delay-profiles).
var figureDelayProfiles = Figure{
	Name: "delay-profiles",
	Summary: "per-stage delays of PipeDream, 2BW and asynchronous interleaved 1F1B, ZB-H1 and ZB-V; " +
		"RPD at the paper's δ, at PipeDream's mean delay and from its per-stage trace against PipeDream (quadratic, LM)",
	// Full: the delays and the quadratic about 26 CPU-s (160 CPU-s at
	// three seeds, 171 runs, scaled to five, less the LM's former 80
	// runs); the LM's 20 runs of 4,000 microbatches about 510 (PipeDream
	// 12 and RPD 30 CPU-s a run in one-seed pilots, docs/figures.md,
	// "Cost"): an estimate, not yet measured.
	Seconds: [2]float64{13, 540},
}
