//go:build unix

// The end-to-end tests build the real binary once and remove it when done.
package e2e

import (
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }
