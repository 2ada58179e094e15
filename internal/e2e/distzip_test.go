//go:build unix

// These tests protect the Windows release (SPEC §21 "Release", make dist):
// a zip per processor holding git-wt.exe built for it, the completions and
// the README; SHA256SUMS, the Scoop manifest and the winget manifest name
// each zip with its checksum and the path of git-wt.exe inside; and a
// release built twice is the same bytes. Only the two Windows platforms
// are built, which keeps it cheap.
package e2e

import (
	"archive/zip"
	"bytes"
	"debug/pe"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/git-wt/git-wt/internal/testutil"
)

const (
	distVersion = "v9.8.7-test"
	distURL     = "https://example.com/r"
)

// windowsZip is one processor's zip: its name, Scoop's and winget's
// names for the processor, and the PE machine of a program built for it.
type windowsZip struct {
	name, scoop, winget string
	machine             uint16
}

var windowsZips = []windowsZip{
	{"git-wt-" + distVersion + "-windows-amd64", "64bit", "x64", pe.IMAGE_FILE_MACHINE_AMD64},
	{"git-wt-" + distVersion + "-windows-arm64", "arm64", "arm64", pe.IMAGE_FILE_MACHINE_ARM64},
}

func TestDistWindowsZipsAndManifests(t *testing.T) {
	s := testutil.NewSandbox(t)
	out, again := t.TempDir(), t.TempDir()
	distWindows(t, s, out)
	distWindows(t, s, again)

	if got, want := tree(t, out), []string{
		".", "SHA256SUMS", "git-wt-v9.8.7-test-windows-amd64.zip", "git-wt-v9.8.7-test-windows-arm64.zip",
		"git-wt.json", "git-wt.rb", "winget", "winget/git-wt.git-wt.installer.yaml",
		"winget/git-wt.git-wt.locale.en-US.yaml", "winget/git-wt.git-wt.yaml",
	}; !slices.Equal(got, want) {
		t.Fatalf("dist made %q, want %q", got, want)
	}
	for _, f := range tree(t, out) {
		one, err := os.ReadFile(filepath.Join(out, f))
		if err != nil {
			continue // a folder
		}
		two, _ := os.ReadFile(filepath.Join(again, f))
		if !bytes.Equal(one, two) {
			t.Errorf("%s differs between two runs of dist", f)
		}
	}

	check := exec.Command("sha256sum", "-c", "SHA256SUMS")
	check.Dir = out
	if b, err := check.CombinedOutput(); err != nil {
		t.Fatalf("SHA256SUMS: %v\n%s", err, b)
	}
	sums := readSums(t, filepath.Join(out, "SHA256SUMS"))
	for _, z := range windowsZips {
		if sums[z.name+".zip"] == "" {
			t.Errorf("SHA256SUMS lacks %s.zip", z.name)
		}
		checkZip(t, filepath.Join(out, z.name+".zip"), z)
	}
	checkScoop(t, filepath.Join(out, "git-wt.json"), sums)
	checkWinget(t, filepath.Join(out, "winget"), sums)
}

// distWindows runs release/dist.sh for the two Windows platforms into out.
func distWindows(t *testing.T, s *testutil.Sandbox, out string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(testutil.Root(), "release", "dist.sh"), distVersion, out, "windows/amd64", "windows/arm64")
	cmd.Env = append(buildEnv(t, s), "DIST_URL="+distURL)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("dist.sh: %v\n%s", err, b)
	}
}

// readSums is SHA256SUMS as archive name → checksum.
func readSums(t *testing.T, file string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		sum, name, _ := strings.Cut(line, "  ")
		sums[name] = sum
	}
	return sums
}

// checkZip: the zip holds the two programs, built for z's processor, the
// README and every completion script in completions/ (PowerShell's when
// there is one), and no man page or install.sh, which are of no use on
// Windows.
func checkZip(t *testing.T, file string, z windowsZip) {
	t.Helper()
	zr, err := zip.OpenReader(file)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	want := []string{z.name + "/", z.name + "/README.md", z.name + "/completions/"}
	scripts, _ := filepath.Glob(filepath.Join(testutil.Root(), "completions", "git-wt.*"))
	for _, s := range scripts {
		want = append(want, z.name+"/completions/"+filepath.Base(s))
	}
	want = append(want, z.name+"/git-wt-mcp.exe", z.name+"/git-wt.exe")
	var got []string
	for _, f := range zr.File {
		got = append(got, f.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s holds %q, want %q", filepath.Base(file), got, want)
	}
	for _, exe := range []string{"git-wt.exe", "git-wt-mcp.exe"} {
		b := readZipFile(t, zr, z.name+"/"+exe)
		if !bytes.HasPrefix(b, []byte("MZ")) {
			t.Errorf("%s in %s is no Windows program: it starts %q", exe, filepath.Base(file), b[:min(len(b), 2)])
			continue
		}
		p, err := pe.NewFile(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s in %s: %v", exe, filepath.Base(file), err)
		}
		if p.Machine != z.machine {
			t.Errorf("%s in %s is built for machine %#x, want %#x", exe, filepath.Base(file), p.Machine, z.machine)
		}
	}
}

func readZipFile(t *testing.T, zr *zip.ReadCloser, name string) []byte {
	t.Helper()
	f, err := zr.Open(name)
	if err != nil {
		t.Fatalf("the zip lacks %s: %v", name, err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkScoop: Scoop's manifest parses, and names each zip at DIST_URL with
// its checksum and its folder; its autoupdate makes the same URL from
// Scoop's $version (no leading v).
func checkScoop(t *testing.T, file string, sums map[string]string) {
	t.Helper()
	var m struct {
		Version      string
		Bin          []string
		Architecture map[string]struct {
			URL        string
			Hash       string
			ExtractDir string `json:"extract_dir"`
		}
		Autoupdate struct {
			Architecture map[string]struct{ URL string }
		}
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("the Scoop manifest does not parse: %v\n%s", err, b)
	}
	if m.Version != "9.8.7-test" || !slices.Contains(m.Bin, "git-wt.exe") {
		t.Errorf("the Scoop manifest has version %q, bin %q", m.Version, m.Bin)
	}
	for _, z := range windowsZips {
		a := m.Architecture[z.scoop]
		if a.URL != distURL+"/"+z.name+".zip" || a.Hash != sums[z.name+".zip"] || a.ExtractDir != z.name {
			t.Errorf("the Scoop manifest's %s is %+v, want %s.zip at %s with sha256 %s", z.scoop, a, z.name, distURL, sums[z.name+".zip"])
		}
		auto := m.Autoupdate.Architecture[z.scoop].URL
		if strings.ReplaceAll(auto, "$version", "9.8.7-test") != a.URL {
			t.Errorf("the Scoop manifest's autoupdate for %s is %q, which is not %s for this version", z.scoop, auto, a.URL)
		}
	}
}

// checkWinget: the three winget files parse as YAML, are one package
// version, and the installer names each zip with its checksum and the
// git-wt.exe in it, on PATH as git-wt.
func checkWinget(t *testing.T, dir string, sums map[string]string) {
	t.Helper()
	type nested struct {
		RelativeFilePath     string `yaml:"RelativeFilePath"`
		PortableCommandAlias string `yaml:"PortableCommandAlias"`
	}
	var m struct {
		PackageIdentifier   string `yaml:"PackageIdentifier"`
		PackageVersion      string `yaml:"PackageVersion"`
		ManifestType        string `yaml:"ManifestType"`
		ManifestVersion     string `yaml:"ManifestVersion"`
		DefaultLocale       string `yaml:"DefaultLocale"`
		License             string `yaml:"License"`
		ShortDescription    string `yaml:"ShortDescription"`
		InstallerType       string `yaml:"InstallerType"`
		NestedInstallerType string `yaml:"NestedInstallerType"`
		Installers          []struct {
			Architecture         string   `yaml:"Architecture"`
			InstallerURL         string   `yaml:"InstallerUrl"`
			InstallerSha256      string   `yaml:"InstallerSha256"`
			NestedInstallerFiles []nested `yaml:"NestedInstallerFiles"`
		} `yaml:"Installers"`
	}
	files := map[string]string{"": "version", ".installer": "installer", ".locale.en-US": "defaultLocale"}
	for suffix, kind := range files {
		b, err := os.ReadFile(filepath.Join(dir, "git-wt.git-wt"+suffix+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		m.ManifestType = ""
		if err := yaml.Unmarshal(b, &m); err != nil {
			t.Fatalf("the winget %s file does not parse: %v\n%s", kind, err, b)
		}
		if m.PackageIdentifier != "git-wt.git-wt" || m.PackageVersion != "9.8.7-test" || m.ManifestType != kind || m.ManifestVersion != "1.6.0" {
			t.Errorf("the winget %s file says %s %s, type %s, schema %s", kind, m.PackageIdentifier, m.PackageVersion, m.ManifestType, m.ManifestVersion)
		}
	}
	if m.DefaultLocale != "en-US" || m.License == "" || m.ShortDescription == "" || m.InstallerType != "zip" || m.NestedInstallerType != "portable" {
		t.Errorf("the winget manifest lacks a field winget needs: %+v", m)
	}
	if len(m.Installers) != len(windowsZips) {
		t.Fatalf("the winget installer file has %d installers, want %d", len(m.Installers), len(windowsZips))
	}
	for i, z := range windowsZips {
		in := m.Installers[i]
		if in.Architecture != z.winget || in.InstallerURL != distURL+"/"+z.name+".zip" || !strings.EqualFold(in.InstallerSha256, sums[z.name+".zip"]) {
			t.Errorf("winget installer %d is %s %s %s, want %s %s.zip with sha256 %s", i, in.Architecture, in.InstallerURL, in.InstallerSha256, z.winget, z.name, sums[z.name+".zip"])
		}
		want := nested{z.name + `\git-wt.exe`, "git-wt"}
		if !slices.Contains(in.NestedInstallerFiles, want) {
			t.Errorf("winget installer %d puts %+v on PATH, want %+v", i, in.NestedInstallerFiles, want)
		}
	}
}
