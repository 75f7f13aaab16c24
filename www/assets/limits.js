// limits.js: the limits of docs/API.md, printed from the table of lib/fields.c
// by scripts/limits-gen.c (`make limits`). Do not edit: change the table.
// type: what min and max count (string: code points, bytes: UTF-8 bytes);
// null: what a JSON null means; code: the error when a value is outside.

export const LIMITS = Object.freeze({
	content: Object.freeze({ member: null, type: 'size', min: 0, max: 2097152, default: null, null: 'invalid', code: 'INVALID_CONTENT_SIZE' }),
	body: Object.freeze({ member: null, type: 'size', min: 0, max: 4194304, default: null, null: 'invalid', code: 'PAYLOAD_TOO_LARGE' }),
	ttl: Object.freeze({ member: 'ttl', type: 'integer', min: 1800, max: 7776000, default: 86400, null: 'default', code: 'INVALID_TTL' }),
	maxViews: Object.freeze({ member: 'maxViews', type: 'integer', min: 1, max: 999, default: 1, null: 'unlimited', code: 'INVALID_MAX_VIEWS' }),
	passphrase: Object.freeze({ member: 'passphrase', type: 'string', min: 4, max: 256, default: null, null: 'none', code: 'INVALID_PASSPHRASE_FORMAT' }),
	deletable: Object.freeze({ member: 'deletable', type: 'boolean', min: 0, max: 1, default: true, null: 'default', code: 'INVALID_DELETABLE' }),
	files: Object.freeze({ member: 'files', type: 'array', min: 0, max: 20, default: null, null: 'none', code: 'INVALID_FILES' }),
	filename: Object.freeze({ member: 'filename', type: 'bytes', min: 1, max: 255, default: null, null: 'invalid', code: 'INVALID_FILES' }),
	mimeType: Object.freeze({ member: 'mimeType', type: 'bytes', min: 0, max: 255, default: null, null: 'default', code: 'INVALID_FILES' }),
	sealedMeta: Object.freeze({ member: null, type: 'size', min: 0, max: 1024, default: null, null: 'invalid', code: 'INVALID_CONTENT_SIZE' }),
	keyCommitment: Object.freeze({ member: 'keyCommitment', type: 'bytes', min: 43, max: 43, default: null, null: 'none', code: 'INVALID_KEY_COMMITMENT' }),
	email: Object.freeze({ member: 'email', type: 'bytes', min: 3, max: 254, default: null, null: 'invalid', code: 'INVALID_EMAIL' }),
	password: Object.freeze({ member: 'password', type: 'string', min: 8, max: 256, default: null, null: 'invalid', code: 'INVALID_PASSWORD' }),
	keyName: Object.freeze({ member: 'name', type: 'bytes', min: 1, max: 128, default: null, null: 'invalid', code: 'INVALID_NAME' }),
	attempts: Object.freeze({ member: null, type: 'count', min: 0, max: 5, default: null, null: 'invalid', code: 'TOO_MANY_ATTEMPTS' }),
	keys: Object.freeze({ member: null, type: 'count', min: 0, max: 100, default: null, null: 'invalid', code: 'KEY_LIMIT_REACHED' }),
	sessionIdle: Object.freeze({ member: null, type: 'seconds', min: 0, max: 7200, default: null, null: 'invalid', code: 'NOT_SIGNED_IN' }),
	sessionMax: Object.freeze({ member: null, type: 'seconds', min: 0, max: 43200, default: null, null: 'invalid', code: 'NOT_SIGNED_IN' }),
	note: Object.freeze({ member: null, type: 'size', min: 0, max: 1024, default: null, null: 'invalid', code: 'INVALID_NOTE' }),
	allowFiles: Object.freeze({ member: 'allowFiles', type: 'boolean', min: 0, max: 1, default: true, null: 'default', code: 'INVALID_ALLOW_FILES' }),
	notify: Object.freeze({ member: 'notify', type: 'array', min: 0, max: 2, default: null, null: 'none', code: 'INVALID_NOTIFY' }),
	webhookUrl: Object.freeze({ member: 'url', type: 'bytes', min: 12, max: 2048, default: null, null: 'invalid', code: 'INVALID_WEBHOOK' }),
	webhooks: Object.freeze({ member: null, type: 'count', min: 0, max: 10, default: null, null: 'invalid', code: 'WEBHOOK_LIMIT_REACHED' }),
	notifyHour: Object.freeze({ member: null, type: 'count', min: 0, max: 100, default: null, null: 'invalid', code: 'RATE_LIMIT_EXCEEDED' }),
	webhookEvents: Object.freeze({ member: 'events', type: 'array', min: 1, max: 4, default: null, null: 'none', code: 'INVALID_WEBHOOK' }),
	adminPage: Object.freeze({ member: 'limit', type: 'integer', min: 1, max: 200, default: 50, null: 'default', code: 'INVALID_ADMIN_ACTION' }),
	adminQuery: Object.freeze({ member: 'q', type: 'bytes', min: 0, max: 128, default: null, null: 'default', code: 'INVALID_ADMIN_ACTION' }),
	adminFresh: Object.freeze({ member: null, type: 'seconds', min: 0, max: 600, default: null, null: 'invalid', code: 'REAUTH_REQUIRED' }),
});
