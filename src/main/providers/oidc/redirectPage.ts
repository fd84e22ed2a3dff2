export interface RedirectPage {
  readonly ok: boolean;
  readonly title: string;
  readonly detail: string;
}

export function signedInPage(profile: string): RedirectPage {
  return {
    ok: true,
    title: `You are signed in to ${profile}`,
    detail: 'Kubecred has your credentials; you can close this tab.',
  };
}

export function failedPage(profile: string, detail: string): RedirectPage {
  return { ok: false, title: `Signing in to ${profile} did not work`, detail };
}

/** The small page the browser shows after the redirect; self-contained (no scripts, no fetches). */
export function renderRedirectPage(page: RedirectPage): string {
  const accent = page.ok ? '#1a7f37' : '#b42318';
  const mark = page.ok ? '&#10003;' : '&#33;';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Kubecred: ${escapeHtml(page.title)}</title>
<style>
  body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: #f6f8fa; color: #1f2328;
         font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  main { max-width: 28rem; padding: 2rem 2.5rem; background: #fff; border-radius: 12px; box-shadow: 0 1px 3px rgba(0,0,0,.12); text-align: center; }
  .mark { width: 3rem; height: 3rem; margin: 0 auto 1rem; border-radius: 50%; display: grid; place-items: center;
          color: #fff; font-size: 1.5rem; font-weight: 700; background: ${accent}; }
  h1 { font-size: 1.25rem; margin: 0 0 .5rem; }
  p { margin: 0; color: #57606a; }
  footer { margin-top: 1.5rem; font-size: .8rem; color: #8c959f; }
</style>
</head>
<body>
<main>
  <div class="mark" aria-hidden="true">${mark}</div>
  <h1>${escapeHtml(page.title)}</h1>
  <p>${escapeHtml(page.detail)}</p>
  <footer>Kubecred</footer>
</main>
</body>
</html>
`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
