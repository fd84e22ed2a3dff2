import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { followLink } from '../../src/main/demo/scriptedBrowser.js';
import { nthRecordedUrl } from './recordingBrowser.js';
import { windowsPath } from './wine.js';

// The stand-in browser as a Windows program: it keeps a copy of the page it is handed (Kubecred's
// private redirect page, which expires) and notes the URL, as recordingBrowser's script does on
// Linux. Go, since a Windows broker starts KUBECRED_BROWSER as a program, not through a shell.
const RECORDER = `package main

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	dir := filepath.Dir(os.Args[0])
	log := filepath.Join(dir, "opened-urls.txt")
	before, _ := os.ReadFile(log)
	n := strings.Count(string(before), "\\n")
	if u, err := url.Parse(os.Args[1]); err == nil && u.Scheme == "file" {
		if page, err := os.ReadFile(filepath.FromSlash(strings.TrimPrefix(u.Path, "/"))); err == nil {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("page-%d.html", n)), page, 0o600)
		}
	}
	f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		os.Exit(1)
	}
	fmt.Fprintln(f, os.Args[1])
	f.Close()
}
`;

export interface WindowsRecordingBrowser {
  /** For a Windows broker's KUBECRED_BROWSER: the recorder's Windows path. */
  readonly command: string;
  /** Opens the n-th page the broker handed the browser in a real (Linux) Chromium page, as the browser would. */
  openIn(page: Page, index: number, timeoutMs?: number): Promise<string>;
}

/** Builds the recorder into `dir` (Go, GOOS=windows) and reads what it recorded there. */
export async function windowsRecordingBrowser(dir: string): Promise<WindowsRecordingBrowser> {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'main.go'), RECORDER);
  await writeFile(path.join(dir, 'go.mod'), 'module recorder\n\ngo 1.21\n');
  const exe = path.join(dir, 'recorder.exe');
  const built = spawnSync('go', ['build', '-o', exe, '.'], {
    cwd: dir,
    env: { ...process.env, GOOS: 'windows', GOARCH: 'amd64', CGO_ENABLED: '0', GOFLAGS: '-mod=mod' },
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`building the Windows stand-in browser failed: ${built.stderr}`);
  const log = path.join(dir, 'opened-urls.txt');
  return {
    command: windowsPath(exe),
    openIn: async (page, index, timeoutMs = 60_000) => {
      const url = await nthRecordedUrl(log, index, timeoutMs);
      return followLink(page, url.startsWith('file:') ? `file://${path.join(dir, `page-${index}.html`)}` : url);
    },
  };
}
