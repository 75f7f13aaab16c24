// account.js: the signed-in session as the pages see it (GET /api/session),
// the account API calls with their CSRF token, and the "signed in as" line of
// the page header. The session cookie is HttpOnly: scripts never see it, only
// the CSRF token the session answer carries.

import { siteRoot, fetchJson, el, msg, localize } from './common.js';

let current = null;	// Promise of the last session answer

// One call of an account endpoint (path below /api/, e.g. "keys/3"). Resolves
// to {ok, status, data, headers}; a network failure is status 0, NETWORK_ERROR.
// State-changing calls carry the session's X-CSRF-Token.
export async function call(method, path, body) {
	const headers = {};
	if (method !== 'GET' && method !== 'HEAD') {
		const token = await csrfToken();
		if (token)
			headers['X-CSRF-Token'] = token;
	}
	const res = await fetchJson(siteRoot() + 'api/' + path, method, body, headers);
	const data = res.data;
	// Answers that describe the session replace the one we know.
	if ('signedIn' in data)
		current = Promise.resolve(data);
	else if (data.code === 'NOT_SIGNED_IN')
		current = Promise.resolve({ signedIn: false });
	return res;
}

// The session: {signedIn, signup, signIn, via?, account?, csrfToken?,
// expiresAt?}. Asked once per page unless refresh is set; a failure counts as
// signed out. When the web server signed the person in (webServerUser), they
// are signed in here too: POST /api/session {webServer: true} makes a session
// of burnlink's own (docs/ACCOUNTS.md); a refusal is kept as refused, the
// error answer that says why.
export function session(refresh) {
	if (!current || refresh)
		current = call('GET', 'session').then(async (r) => {
			if (!r.ok)
				return { signedIn: false, failed: true };
			if (r.data.signedIn || !r.data.webServerUser)
				return r.data;
			const w = await fetchJson(siteRoot() + 'api/session', 'POST', { webServer: true });
			return w.ok ? w.data : { ...r.data, refused: w.data };
		});
	return current;
}

// The CSRF token of the signed-in session, or null.
export async function csrfToken(refresh) {
	const s = await session(refresh);
	return s.signedIn ? s.csrfToken : null;
}

// Fills the header's account line: who is signed in and a link to the
// dashboard, or a sign-in link.
export async function showAccount(nav) {
	if (!nav)
		return;
	const s = await session();
	const dash = siteRoot() + 'dashboard';
	nav.replaceChildren();
	if (s.signedIn) {
		nav.append(
			el('span', { class: 'who', 'data-i18n': 'common.signedInAs' },
				el('strong', { text: s.account.email, 'data-i18n-slot': 'email', dir: 'auto' })),
			el('a', { href: dash, id: 'dashboard-link', text: msg('common.dashboard') }));
		localize(nav.firstChild, msg('common.signedInAs'));
	} else if (!s.failed) {
		nav.append(el('a', { href: dash, id: 'signin-link', text: msg('common.signIn') }));
	}
	nav.hidden = nav.childElementCount === 0;
}
