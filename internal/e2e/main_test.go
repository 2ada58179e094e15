package e2e

import (
	"testing"

	"github.com/git-wt/git-wt/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }
