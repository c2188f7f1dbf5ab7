GO ?= go

.PHONY: run test race race-concurrent check-quick bench lint fuzz build test-slurm duckdb-check tables-equal claims check-size

# The main job: the paper's figures, small enough to finish in minutes, into ./out.
run:
	$(GO) run ./cmd/pipelab reproduce --quick --out out

test:
	$(GO) vet ./...
	$(GO) test ./...

race:
	$(GO) test -race ./...

# The race detector on the packages whose code runs concurrently (CI runs it; make race runs every package).
race-concurrent:
	$(GO) test -race -short ./explorer ./experiments/sweep ./pipeline/tune ./internal/atomicfile ./internal/budget ./objectives/charlm
	$(GO) test -race -run 'Serve|Signal' ./cmd/pipelab

# The checks that need a quick reproduce's tables: make run, then make check-quick OUT=out.
check-quick:
	PIPELAB_QUICK_OUT=$(abspath $(or $(OUT),out)) $(GO) test -tags quickcheck -count=1 -run '^TestQuickFiguresBracket$$' ./experiments

# The size guards against the kernel's peak resident memory (TestSizeEstimatesCoverThePeak, the command line's
# largest schedules and simulations, about a minute: built only with the tag sizecheck; CI runs it).
check-size:
	$(GO) test -tags sizecheck -count=1 -run '^TestSizeEstimatesCoverThePeak$$' ./cmd/pipelab

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

lint:
	@test -z "$$(gofmt -l .)" || (gofmt -l .; echo 'gofmt: files above need formatting'; exit 1)
	$(GO) vet ./...

# docs/results.md's DuckDB queries and table keys, run in DuckDB (npm's @duckdb/node-api, pinned by
# scripts/duckdb/package-lock.json) on the tables of a quick reproduce; needs node and npm.
duckdb-check:
	GO=$(GO) bash scripts/duckdb/check.sh

# Two result folders hold the same Parquet tables (every file, DuckDB EXCEPT ALL both ways, 0 rows; runs.parquet's
# wall_seconds, the one wall-clock column, left out): make tables-equal A=out B=/tmp/other-out. Needs node and npm.
tables-equal:
	bash scripts/duckdb/tables-equal.sh "$(A)" "$(B)"

# A reproduce folder's claims as Markdown, read in DuckDB from its tables alone (docs/figures.md's "Under the one rule"):
# make claims DIR=out [ROWS=summary|holds|all]. Needs node and npm.
ROWS ?= summary
claims:
	bash scripts/duckdb/claims.sh "$(DIR)" "$(ROWS)"

# One target at a time (fuzzing takes every core it is given); docs/robustness.md records the last runs.
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzReadCSV$$' -fuzztime 60s ./pipeline
	$(GO) test -run '^$$' -fuzz '^FuzzParseSpec$$' -fuzztime 60s ./experiments
	$(GO) test -run '^$$' -fuzz '^FuzzReadDelayTrace$$' -fuzztime 60s ./optim
	$(GO) test -run '^$$' -fuzz '^FuzzReadCSV$$' -fuzztime 60s ./objectives
	$(GO) test -run '^$$' -fuzz '^FuzzParseCostsCSV$$' -fuzztime 60s ./pipeline/cost
	$(GO) test -run '^$$' -fuzz '^FuzzProfile$$' -fuzztime 60s ./pipeline/cost
	$(GO) test -run '^$$' -fuzz '^FuzzParseHardware$$' -fuzztime 60s ./pipeline/cost
	$(GO) test -run '^$$' -fuzz '^FuzzParseHFConfig$$' -fuzztime 60s ./pipeline/cost
	$(GO) test -run '^$$' -fuzz '^FuzzParseHardwarePresets$$' -fuzztime 60s ./pipeline/cost
	$(GO) test -run '^$$' -fuzz '^FuzzParseSpecs$$' -fuzztime 60s ./experiments
	$(GO) test -run '^$$' -fuzz '^FuzzReadDataset$$' -fuzztime 60s ./experiments/sweep
	$(GO) test -run '^$$' -fuzz '^FuzzParseShard$$' -fuzztime 60s ./experiments/sweep
	$(GO) test -run '^$$' -fuzz '^FuzzParseBytes$$' -fuzztime 60s ./internal/budget
	$(GO) test -run '^$$' -fuzz '^FuzzReadTable$$' -fuzztime 60s ./results

build:
	$(GO) build -o bin/pipelab ./cmd/pipelab

# The explorer as a static folder, out/explorer/ (the page, its server compiled to WebAssembly as pipelab.wasm,
# the replay build with train as pipelab-replay.wasm, loaded on the first replay, and Go's wasm_exec.js), which
# any static HTTP server serves with no pipelab server (docs/explorer.md).
.PHONY: explorer-static
explorer-static:
	GO=$(GO) bash scripts/explorer-static.sh out/explorer

# The explorer, served (pipelab serve) and static (make explorer-static, served by a plain HTTP server), in
# Debian's chromium driven by npm's playwright-core (pinned by scripts/browser/package-lock.json); installs
# both when missing. SCREENSHOTS=docs/img rewrites docs/img/explorer-*.png.
.PHONY: test-browser
test-browser: explorer-static
	GO=$(GO) STATIC=$(abspath out/explorer) bash scripts/browser/test.sh

# The images of docs/figures.md from a reproduce output folder: make docs-img OUT=out (KEEP_BEFORE=1 keeps the
# images replaced as docs/img/before/NAME.png, where none is yet; FIGURES="delays schedules" copies those only).
.PHONY: docs-img
docs-img:
	bash scripts/docs-img.sh $(if $(KEEP_BEFORE),--keep-before) $(or $(OUT),out) $(FIGURES)

# The timing model beside published measurements: the tables of docs/validation.md.
.PHONY: validate
validate:
	$(GO) run ./cmd/pipelab validate
# A real single-node Slurm cluster runs deploy/slurm/sweep.sbatch as an array job, one task requeued mid-run,
# then merge, compared with the unsharded sweep (about a minute; installs slurm-wlm and munge when missing).
# Exit status 3: Slurm could not be installed here. Not part of "make test".
test-slurm:
	bash deploy/slurm/test-slurm.sh
