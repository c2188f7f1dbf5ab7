package request

import "github.com/pipelab/pipelab/pipeline/sim"

// SimulateReport is what "pipelab simulate --format json" prints, its
// JSON encoding key for key. Times are in the cost model's unit (steps,
// or seconds under the GPU model).
type SimulateReport struct {
	Kind         string           `json:"kind,omitempty"`     // --kind, the generated family
	Schedule     string           `json:"schedule,omitempty"` // --schedule, the CSV file timed
	NumRanks     int              `json:"ranks"`              // P, as the schedules column ranks
	Stages       int              `json:"stages"`
	Microbatches int              `json:"microbatches"`
	Cost         string           `json:"cost_model"`
	Policy       string           `json:"policy"`
	Hint         string           `json:"hint,omitempty"`
	Patience     string           `json:"patience,omitempty"`
	Makespan     float64          `json:"makespan"`
	BubbleRatio  float64          `json:"bubble_ratio"`
	Steps        *int             `json:"lockstep_steps"`
	StepsNote    string           `json:"lockstep_steps_note,omitempty"`
	Messages     int              `json:"messages"`
	CommBytes    float64          `json:"comm_bytes,omitempty"`
	Ranks        []RankReport     `json:"per_rank"` // as delays' per_stage
	Iterations   *IterationReport `json:"iterations,omitempty"`
	// IterationSeconds and ModelFLOPsPerGPU, under the GPU model: the
	// whole step (makespan, gradient sync, optimizer) and equation 3's
	// FLOP/s per GPU over T × P × D GPUs (cost.GPUModel.Iteration); with
	// PostValidation the longest rank span, then that rank's sync and step
	// (cost.GPUModel.PostValidatedIteration).
	IterationSeconds float64 `json:"iteration_seconds,omitempty"`
	PostValidation   bool    `json:"post_validation,omitempty"`
	ModelFLOPsPerGPU float64 `json:"model_flops_per_gpu,omitempty"`
	GPUs             int     `json:"gpus,omitempty"`
	// Cluster is set when the GPU model has tensor or data parallelism or
	// nodes: the text shows the whole step then.
	Cluster bool `json:"-"`
	// MemoryLimit is the GPU's memory in bytes under the GPU model.
	MemoryLimit float64 `json:"memory_limit_bytes,omitempty"`
	// Params and ActiveParams are the model's total parameters and those
	// a token runs through (MoE: the routed experts it visits), under the
	// GPU model.
	Params       float64 `json:"params,omitempty"`
	ActiveParams float64 `json:"active_params,omitempty"`
	// Timeline is the simulated timeline (the first iteration's), which
	// the page draws and --trace and --gantt write; not in the JSON.
	Timeline *sim.Timeline `json:"-"`
}

// RankReport is one rank's line of a SimulateReport.
type RankReport struct {
	Rank int     `json:"rank"`
	Busy float64 `json:"busy"`
	// Idle is Bubble + CommWait (sim.RankStat.CommWait).
	Idle     float64 `json:"idle"`
	Bubble   float64 `json:"bubble"`
	CommWait float64 `json:"comm_wait"`
	// PeakActivations is in M_B, microbatches of a rank's share of the
	// model (a chunk of V holds 1/V), as compare and schedules.parquet give it.
	PeakActivations float64 `json:"peak_activations"`
	PeakMemoryBytes float64 `json:"peak_memory_bytes"`
	// OverMemory marks a rank whose peak exceeds the GPU's memory.
	OverMemory bool `json:"over_memory,omitempty"`
}

// IterationReport is the makespans of K iterations (--iterations K > 1).
type IterationReport struct {
	Count     int       `json:"count"`
	Seed      uint64    `json:"seed"`
	Makespans []float64 `json:"makespans"`
	Mean      float64   `json:"mean"`
	Spread    float64   `json:"spread"`
}
