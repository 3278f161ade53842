// kix-tlog-client: an outside C2SP tlog-tiles client for kix's tests. It
// shares no code with kix: Go's golang.org/x/mod/sumdb/note verifies the
// checkpoint signature and golang.org/x/mod/sumdb/tlog the tiles and
// proofs; only HTTP GETs reach the log.
//
//	kix-tlog-client -url URL -vkey KEY [-old CHECKPOINT] [-save FILE] [-samples N] [-all]
//
// It fetches URL/checkpoint and verifies it with KEY (a signed-note
// verifier key), authenticates every tile it reads against the checkpoint's
// root (tlog.TileHashReader), proves the inclusion of sampled entries read
// from entry bundles (each entry's RFC 6962 leaf hash against the tree),
// and with -old proves the consistency of an older checkpoint with this
// one and recomputes the older root from the older tree's own (partial)
// tiles. Exit status 0 when everything verified, 1 otherwise.
package main

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

const height = 8

var client = &http.Client{Timeout: 20 * time.Second}
var fetches int

// tiles already fetched (tlog.TileHashReader asks again for each proof)
var cache = map[string][]byte{}

type notFound struct{ url string }

func (e notFound) Error() string { return "404 " + e.url }

func get(url string) ([]byte, error) {
	if b, ok := cache[url]; ok {
		return b, nil
	}
	fetches++
	resp, err := client.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode == http.StatusNotFound {
		return nil, notFound{url}
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if !strings.HasSuffix(url, "/checkpoint") {
		cache[url] = body
	}
	return body, nil
}

// indexPath encodes N as the spec says: groups of three digits, all but
// the last prefixed with "x".
func indexPath(n int64) string {
	s := fmt.Sprintf("%03d", n%1000)
	for n >= 1000 {
		n /= 1000
		s = fmt.Sprintf("x%03d/", n%1000) + s
	}
	return s
}

func resource(prefix string, n int64, w int) string {
	p := prefix + indexPath(n)
	if w < 1<<height {
		p += ".p/" + strconv.Itoa(w)
	}
	return p
}

type reader struct{ base string }

func (r reader) Height() int { return height }

func (r reader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		prefix := fmt.Sprintf("%s/tile/%d/", r.base, t.L)
		data, err := get(resource(prefix, t.N, t.W))
		var nf notFound
		if errors.As(err, &nf) && t.W < 1<<height {
			// the spec lets a log drop a partial tile once the full one exists
			data, err = get(resource(prefix, t.N, 1<<height))
			if err == nil && len(data) >= t.W*tlog.HashSize {
				data = data[:t.W*tlog.HashSize]
			}
		}
		if err != nil {
			return nil, err
		}
		if len(data) != t.W*tlog.HashSize {
			return nil, fmt.Errorf("tile %d/%d.p/%d: %d bytes", t.L, t.N, t.W, len(data))
		}
		out[i] = data
	}
	return out, nil
}

func (r reader) SaveTiles([]tlog.Tile, [][]byte) {}

type checkpoint struct {
	origin string
	tree   tlog.Tree
	raw    []byte
}

func openCheckpoint(raw []byte, v note.Verifier) (*checkpoint, error) {
	n, err := note.Open(raw, note.VerifierList(v))
	if err != nil {
		return nil, fmt.Errorf("checkpoint signature: %v", err)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 || lines[len(lines)-1] != "" {
		return nil, fmt.Errorf("checkpoint body malformed: %q", n.Text)
	}
	if lines[0] != v.Name() {
		return nil, fmt.Errorf("checkpoint origin %q is not the key's name %q", lines[0], v.Name())
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil || size < 0 || strconv.FormatInt(size, 10) != lines[1] {
		return nil, fmt.Errorf("checkpoint size %q", lines[1])
	}
	root, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(root) != tlog.HashSize {
		return nil, fmt.Errorf("checkpoint root %q", lines[2])
	}
	c := &checkpoint{origin: lines[0], raw: raw}
	c.tree.N = size
	copy(c.tree.Hash[:], root)
	return c, nil
}

// bundle fetches and splits the entry bundle holding index i in a tree of size n.
func bundle(base string, i, n int64) ([][]byte, error) {
	idx := i >> height
	w := n - idx<<height
	if w > 1<<height {
		w = 1 << height
	}
	data, err := get(resource(base+"/tile/entries/", idx, int(w)))
	if err != nil {
		return nil, err
	}
	var entries [][]byte
	for len(data) > 0 {
		if len(data) < 2 {
			return nil, fmt.Errorf("bundle %d: truncated length", idx)
		}
		l := int(data[0])<<8 | int(data[1])
		if len(data) < 2+l {
			return nil, fmt.Errorf("bundle %d: truncated entry", idx)
		}
		entries = append(entries, data[2:2+l])
		data = data[2+l:]
	}
	if int64(len(entries)) != w {
		return nil, fmt.Errorf("bundle %d holds %d entries, want %d", idx, len(entries), w)
	}
	return entries, nil
}

func run() error {
	url := flag.String("url", "", "the log's URL prefix")
	vkey := flag.String("vkey", "", "the log's verifier key")
	old := flag.String("old", "", "an older checkpoint file to prove consistency with")
	save := flag.String("save", "", "write the verified checkpoint here")
	samples := flag.Int("samples", 16, "entries whose inclusion to prove")
	all := flag.Bool("all", false, "check every entry of every bundle against the tree")
	flag.Parse()
	if *url == "" || *vkey == "" {
		return errors.New("usage: kix-tlog-client -url URL -vkey KEY [-old FILE] [-save FILE]")
	}
	base := strings.TrimRight(*url, "/")
	v, err := note.NewVerifier(*vkey)
	if err != nil {
		return fmt.Errorf("verifier key: %v", err)
	}
	raw, err := get(base + "/checkpoint")
	if err != nil {
		return err
	}
	cp, err := openCheckpoint(raw, v)
	if err != nil {
		return err
	}
	n := cp.tree.N
	tr := reader{base}
	hr := tlog.TileHashReader(cp.tree, tr)
	// the root folded from the tiles is the signed one
	th, err := tlog.TreeHash(n, hr)
	if err != nil {
		return fmt.Errorf("tree hash from tiles: %v", err)
	}
	if th != cp.tree.Hash {
		return fmt.Errorf("tiles give root %v, checkpoint says %v", th, cp.tree.Hash)
	}
	proved := 0
	if n > 0 {
		var idx []int64
		if *all {
			for i := int64(0); i < n; i += 1 << height {
				idx = append(idx, i)
			}
		} else {
			for k := 0; k < *samples; k++ {
				idx = append(idx, int64(k)*(n-1)/int64(max(*samples-1, 1)))
			}
		}
		for _, i := range idx {
			entries, err := bundle(base, i, n)
			if err != nil {
				return err
			}
			first := i >> height << height
			check := []int64{i}
			if *all {
				check = nil
				for j := range entries {
					check = append(check, first+int64(j))
				}
			}
			for _, e := range check {
				leaf := entries[e-first]
				var env struct {
					PayloadType string `json:"payloadType"`
					Payload     string `json:"payload"`
				}
				if err := json.Unmarshal(leaf, &env); err != nil || env.PayloadType == "" {
					return fmt.Errorf("entry %d is not a DSSE envelope", e)
				}
				p, err := tlog.ProveRecord(n, e, hr)
				if err != nil {
					return fmt.Errorf("inclusion proof of %d: %v", e, err)
				}
				if err := tlog.CheckRecord(p, n, cp.tree.Hash, e, tlog.RecordHash(leaf)); err != nil {
					return fmt.Errorf("entry %d: %v", e, err)
				}
				proved++
			}
		}
	}
	consistent := ""
	if *old != "" {
		oraw, err := os.ReadFile(*old)
		if err != nil {
			return err
		}
		ocp, err := openCheckpoint(oraw, v)
		if err != nil {
			return fmt.Errorf("old %v", err)
		}
		if ocp.tree.N > n {
			return fmt.Errorf("rollback: old size %d > %d", ocp.tree.N, n)
		}
		p, err := tlog.ProveTree(n, ocp.tree.N, hr)
		if err != nil {
			return fmt.Errorf("consistency proof: %v", err)
		}
		if err := tlog.CheckTree(p, n, cp.tree.Hash, ocp.tree.N, ocp.tree.Hash); err != nil {
			return fmt.Errorf("consistency %d -> %d: %v", ocp.tree.N, n, err)
		}
		// and the older tree's own tiles (its partial ones) give its root
		oth, err := tlog.TreeHash(ocp.tree.N, tlog.TileHashReader(ocp.tree, tr))
		if err != nil || oth != ocp.tree.Hash {
			return fmt.Errorf("old root from the old tree's tiles: %v", err)
		}
		consistent = fmt.Sprintf(", consistent with size %d", ocp.tree.N)
	}
	if *save != "" {
		if err := os.WriteFile(*save, cp.raw, 0o644); err != nil {
			return err
		}
	}
	fmt.Printf("verified %s at size %d: root %s, %d inclusion proofs%s, %d fetches\n",
		cp.origin, n, base64.StdEncoding.EncodeToString(cp.tree.Hash[:]), proved, consistent, fetches)
	return nil
}

func max(a, b int) int {
	if a > b {
		return a
	}
	return b
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "kix-tlog-client:", err)
		os.Exit(1)
	}
}
