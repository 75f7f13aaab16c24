// setup.js: the page /setup (docs/ADMIN.md, "Setting up without a shell"):
// with the code of the file burnlink-setup, the settings file's check and the
// first operator's account (docs/API.md, "GET, POST /setup").

import { $, showView, announce, setMessage, describeError, msg, localize } from './common.js';
import { call } from './account.js';

function explain(res) {
	const d = res.data || {};
	switch (d.code) {
	case 'INVALID_SETUP_CODE':
		return { title: msg('setup.wrongCode'), detail: d.hint || '' };
	case 'SETUP_CLOSED':
		return { title: msg('setup.closedTitle'), detail: msg('setup.closedDetail') };
	default:
		return describeError(res);
	}
}

function fail(res) {
	const box = $('setup-message');
	const m = explain(res);
	setMessage(box, 'error', m.title, m.detail);
	box.focus();
}

function showSettings(s) {
	$('settings-result').hidden = false;
	const sum = $('settings-summary');
	const pre = $('settings-error');
	if (s.ok) {
		localize(sum, msg(s.loaded ? 'setup.settingsOk' : 'setup.settingsNone', { file: s.file }));
		pre.hidden = true;
	} else {
		localize(sum, msg('setup.settingsBad'));
		pre.textContent = s.error;
		pre.hidden = false;
	}
	announce(sum.textContent);
}

async function check() {
	setMessage($('setup-message'), '', '');
	const res = await call('POST', 'setup', { code: $('setup-code').value });
	if (!res.ok)
		return fail(res);
	showSettings(res.data.settings);
}

async function create(e) {
	e.preventDefault();
	setMessage($('setup-message'), '', '');
	const body = {
		code: $('setup-code').value,
		name: $('setup-name').value.trim(),
		password: $('setup-password').value,
	};
	const button = $('create-button');
	button.disabled = true;
	const res = await call('POST', 'setup', body);
	button.disabled = false;
	if (!res.ok)
		return fail(res);
	$('setup-code').value = '';
	$('setup-password').value = '';
	showView('done-view');
	$('done-title').focus();
}

async function start() {
	showView('loading-view');
	const res = await call('GET', 'setup');
	if (!res.ok) {
		const m = describeError(res);
		setMessage($('error-message'), 'error', m.title, m.detail);
		return showView('error-view');
	}
	showView(res.data.open ? 'setup-view' : 'closed-view');
}

$('check-button').addEventListener('click', check);
$('setup-form').addEventListener('submit', create);
$('retry').addEventListener('click', () => start());
start();
