// Package stress holds git-wt's randomized stress test: many real git-wt
// processes at once on one repository, first with no kill (no process may
// be judged stopped), then with random SIGKILLs, then crash repair and the
// invariants of SPEC §7 (see stress_test.go). Its test files are built on
// unix only: it kills process groups and checks flocks.
package stress
