// receipt.js: the receipt page. Shows the state of a secret by its receipt key
// (never its content), refreshes itself while it is open and shown (and on
// demand), and burns it after confirmation.

import {
	$, el, api, pathKey, describeError, formatDate, formatRelative, showView,
	announce, setMessage,
} from './common.js';

const receiptKey = pathKey();

const STATES = {
	active: { label: 'Active', badge: 'active' },
	exhausted: { label: 'Viewed up', badge: 'exhausted' },
	burned: { label: 'Burned', badge: 'burned' },
	expired: { label: 'Expired', badge: 'expired' },
};

function gone(title, text) {
	$('gone-title').textContent = title;
	$('gone-text').textContent = text;
	document.title = `${title} · burnlink`;
	document.body.dataset.state = 'gone';
	showView('gone-view');
	announce(title + '.');
}

function when(iso) {
	return [formatRelative(iso), el('span', { class: 'sub', text: formatDate(iso) })];
}

function stateText(m) {
	switch (m.state) {
	case 'active':
		if (!m.viewCount)
			return 'Nobody has opened the secret yet.';
		return `The secret was opened ${m.viewCount === 1 ? 'once' : m.viewCount + ' times'} and still works.`;
	case 'exhausted':
		return 'All its views are used: the secret was read, its content is deleted and the link no longer works.';
	case 'burned':
		return 'The secret was burned: its content is deleted and the link no longer works.';
	case 'expired':
		return 'The secret expired: its content is deleted and the link no longer works.';
	default:
		return '';
	}
}

function render(m) {
	const st = STATES[m.state] || { label: m.state, badge: '' };
	const badge = $('state-badge');
	badge.textContent = st.label;
	badge.className = 'badge ' + st.badge;
	$('state-text').textContent = stateText(m);
	$('r-state').textContent = st.label;
	const used = m.viewCount || 0;
	$('r-used').textContent = m.maxViews === null ? String(used) : `${used} of ${m.maxViews}`;
	$('r-left').textContent = m.state !== 'active' ? '0'
		: m.viewsRemaining === null || m.viewsRemaining === undefined ? 'Unlimited until it expires'
			: String(m.viewsRemaining);
	if (m.lastViewedAt)
		$('r-last').replaceChildren(...when(m.lastViewedAt));
	else
		$('r-last').textContent = 'Not yet';
	$('r-created').replaceChildren(...when(m.createdAt));
	$('r-expires').replaceChildren(...when(m.expiresAt));
	$('r-passphrase').textContent = m.hasPassphrase ? 'Yes' : 'No';
	$('r-deletable').textContent = m.deletable ? 'Yes' : 'No';
	$('burn-button').hidden = m.state !== 'active';
	if (m.state !== 'active')
		$('burn-confirm').hidden = true;
	$('checked-at').textContent = 'Checked ' + new Intl.DateTimeFormat(undefined, {
		hour: '2-digit', minute: '2-digit', second: '2-digit',
	}).format(new Date()) + '.';
	document.body.dataset.state = m.state;
	document.title = `Receipt: ${st.label} · burnlink`;
	showView('receipt-view');
}

// Load (or reload) the receipt; returns the metadata or null.
async function load() {
	const res = await api('GET', receiptKey);
	if (res.ok && res.data.type === 'receipt') {
		render(res.data);
		return res.data;
	}
	if (res.ok || res.status === 404 || res.status === 410) {
		gone('Receipt not found', 'There is no secret for this receipt. Secrets and their receipts are removed about an hour after they expire, or the link is wrong.');
		return null;
	}
	const { title, detail } = describeError(res);
	setMessage($('error-message'), 'error', title, detail);
	document.body.dataset.state = 'error';
	showView('error-view');
	return null;
}

/*
 * Refreshing by itself while the secret is active and the page is shown:
 * after 10 s, then less often (x1.5, up to every 2 minutes; back to 10 s after
 * a change), at once when the page is shown again. Each check is one GET of
 * the receipt (counted against the client's daily limit like any other).
 */
const POLL_MIN = 10000, POLL_MAX = 120000;
let pollDelay = POLL_MIN, pollTimer = null, lastSeen = '';

function schedule(m) {
	clearTimeout(pollTimer);
	pollTimer = null;
	if (!m || m.state !== 'active' || document.hidden)
		return;
	pollTimer = setTimeout(poll, pollDelay);
}

async function poll() {
	pollTimer = null;
	const m = await load();
	if (!m)
		return;
	const seen = `${m.state}/${m.viewCount}`;
	if (seen !== lastSeen) {
		if (lastSeen)
			announce(`${STATES[m.state] ? STATES[m.state].label : m.state}. ${stateText(m)}`);
		lastSeen = seen;
		pollDelay = POLL_MIN;
	} else {
		pollDelay = Math.min(POLL_MAX, Math.round(pollDelay * 1.5));
	}
	schedule(m);
}

document.addEventListener('visibilitychange', () => {
	if (document.hidden) {
		clearTimeout(pollTimer);
		pollTimer = null;
	} else if (receiptKey && document.body.dataset.state === 'active' && !pollTimer) {
		pollDelay = POLL_MIN;
		poll();
	}
});

$('refresh').addEventListener('click', async () => {
	const b = $('refresh');
	b.disabled = true;
	b.textContent = 'Refreshing…';
	setMessage($('receipt-message'), '', '');
	const m = await load();
	schedule(m);
	b.disabled = false;
	b.textContent = 'Refresh';
	if (m) {
		b.focus();
		announce(`Updated. ${STATES[m.state] ? STATES[m.state].label : m.state}. ${stateText(m)}`);
	}
});

$('burn-button').addEventListener('click', () => {
	$('burn-confirm').hidden = false;
	$('burn-yes').focus();
});
$('burn-no').addEventListener('click', () => {
	$('burn-confirm').hidden = true;
	$('burn-button').focus();
});
$('burn-confirm').addEventListener('keydown', (e) => {
	if (e.key === 'Escape') {
		$('burn-confirm').hidden = true;
		$('burn-button').focus();
	}
});
$('burn-yes').addEventListener('click', async (e) => {
	if (!e.isTrusted)
		return;
	$('burn-yes').disabled = true;
	const res = await api('DELETE', receiptKey);
	$('burn-yes').disabled = false;
	$('burn-confirm').hidden = true;
	const box = $('receipt-message');
	if (res.ok) {
		await load();
		setMessage(box, 'ok', 'Burned.', 'The secret is deleted and its link no longer works for anyone.');
		box.focus();
		return;
	}
	const { title, detail } = describeError(res);
	if (res.status === 410 || res.status === 404)
		await load();
	setMessage(box, 'error', title, detail);
	box.focus();
});

$('retry').addEventListener('click', () => {
	showView('loading-view');
	load();
});

if (!receiptKey)
	gone('This receipt link is not valid', 'The address does not name a receipt: it was probably cut off or changed when it was copied. Nothing was requested from the server.');
else
	load().then((m) => {
		if (m)
			lastSeen = `${m.state}/${m.viewCount}`;
		schedule(m);
	});
