# AntreaPlus. `make help` lists the targets.
SHELL := /usr/bin/env bash -o pipefail
.DEFAULT_GOAL := help

TOOLS       := hack/tools.sh
TOOLS_DIR    = $(shell $(TOOLS) dir)
BIN         := $(CURDIR)/bin
GO_PACKAGES := ./...
# Tests and benchmarks find the cached Kubernetes, etcd and kwok binaries here.
export ANTREAPLUS_TOOLS_DIR = $(TOOLS_DIR)

.PHONY: help
help: ## Show this help.
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  \033[36m%-10s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: tools
tools: ## Build the Kubernetes control plane, etcd, kwok, controller-gen, golangci-lint, Helm and ExternalDNS into the version-keyed cache.
	@$(TOOLS)

.PHONY: build
build: ## Build the product's programs (cmd/) into ./bin.
	@mkdir -p $(BIN)
	CGO_ENABLED=0 go build -o $(BIN)/ ./cmd/...

.PHONY: build-dev
build-dev: ## Build the development tools the sandbox runs (the cloud emulator) into ./bin.
	@mkdir -p $(BIN)
	go build -o $(BIN)/ ./test/infrastructure/cmd/...

# make images: the registry the images are named in (<registry>/<program>:<version>)
# and their tag (default: git describe --tags --always --dirty).
IMAGE_REGISTRY ?= registry.antreaplus.io/antreaplus
IMAGE_VERSION  ?=

.PHONY: images
images: ## Build the cluster programs' OCI images (linux/amd64, arm64; no container runtime) into _output/images.
	go run ./hack/images -output _output/images -registry $(IMAGE_REGISTRY) $(if $(IMAGE_VERSION),-version $(IMAGE_VERSION))

.PHONY: packages
packages: ## Build the VM agent's .deb and tarball for linux/amd64 and arm64 into _output/packages.
	go run ./hack/packages --out _output/packages

.PHONY: generate
generate: tools ## Generate deepcopy code and CRD manifests from api/, and the chart's CRDs and RBAC.
	@hack/generate.sh

.PHONY: verify
verify: tools ## Fail when generated code is stale or code is unformatted.
	@hack/verify.sh

.PHONY: lint
lint: tools ## Run go vet and golangci-lint.
	go vet $(GO_PACKAGES)
	"$(TOOLS_DIR)/golangci-lint" run $(GO_PACKAGES)

.PHONY: test
test: tools ## Run every test: verify, unit, integration and end-to-end (real API servers).
	@hack/test.sh

.PHONY: test-unit
test-unit: ## The inner loop: every package that starts no cluster, under the race detector (no tools needed).
	@hack/test-unit.sh

.PHONY: bench
bench: tools ## Run the benchmarks; prints tables and writes JSON under _output/bench.
	@hack/bench.sh

.PHONY: bench-scale
bench-scale: tools ## The scale benchmark alone: BENCH_MEMBERS light members (default 30), 3 supervisors; writes _output/bench/scale.json.
	@hack/bench-scale.sh

# The tools the demo's sandbox runs: the control plane, kwok, ExternalDNS (not
# the linter, controller-gen or Helm).
DEMO_TOOLS := kubernetes kwok external-dns

.PHONY: demo
demo: build build-dev ## Start a federated 3-cluster sandbox with a local cloud and show it, section by section (hack/demo).
	@$(TOOLS) modules $(DEMO_TOOLS)
	@if [ "$$(id -u)" = 0 ]; then hack/ensure-packages.sh nftables iproute2; fi
	go run ./hack/demo -bin $(BIN)

.PHONY: clean
clean: ## Stop the sandbox and remove build output.
	-@$(BIN)/antreaplus sandbox down 2>/dev/null
	rm -rf $(BIN) _output
