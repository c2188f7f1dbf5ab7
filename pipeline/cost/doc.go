// Package cost prices the actions of a schedule table: the Model interface
// (compute and transfer times), Memory (activation and static bytes, with
// the Zero Bubble split's M_W in WeightGradMemory), MessageSizer and
// GradientSync (the all-reduce of replicated parts' gradients); unit and
// explicit per-stage costs; and the communication-aware GPU timing model,
// built from a Network (per-layer FLOPs, parameters and activations of
// dense, mixture-of-experts and vision-language transformers, with
// FlashAttention as an option, DeepSeek's latent attention (MLA) and the
// all-to-alls of expert parallelism, hidden in overlapped F&B pairs:
// ExpertParallel), a GPU and a Link (a transfer priced point to point:
// latency, a blocking transfer's overhead, NCCL's send/receive bandwidth;
// Link.PointToPoint), with its presets and the
// pricing of tables whose stages replicate model parts (ModelParts,
// GPUForTable); at cluster scale (Parallelism) each stage runs on T
// tensor-parallel GPUs of a node, the pipeline D times over, with
// activation recomputation, and a step ends with the gradient reduction
// and the optimizer (Iteration). Its inputs come from presets, HuggingFace config.json files
// (ReadHFConfig), hardware files (ReadHardware: a GPU, and the links within
// and between nodes), and measurements (Measured, from a costs CSV or a
// PyTorch profiler trace: ReadCostsCSV, ReadProfile). It knows tables, not
// time: the simulator in pipeline/sim takes a Model.
package cost
