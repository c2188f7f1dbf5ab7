GO ?= go

.PHONY: run test race bench lint fuzz build

# The main job: the paper's figures, small enough to finish in minutes, into ./out.
run:
	$(GO) run ./cmd/pipelab reproduce --quick --out out

test:
	$(GO) vet ./...
	$(GO) test ./...

race:
	$(GO) test -race ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

lint:
	@test -z "$$(gofmt -l .)" || (gofmt -l .; echo 'gofmt: files above need formatting'; exit 1)
	$(GO) vet ./...

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzReadCSV -fuzztime 60s ./pipeline

build:
	$(GO) build -o bin/pipelab ./cmd/pipelab

# The timing model beside published measurements: the tables of docs/validation.md.
.PHONY: validate
validate:
	$(GO) run ./cmd/pipelab validate
