// URLs the SSRF guard (src/webhooks/ssrf.ts) must refuse in tests too, where loopback is
// allowed (WEBHOOK_ALLOWED_CIDRS=127.0.0.0/8,::1/128): private, shared, link-local,
// metadata, reserved and documentation addresses in every notation a URL can carry
// them — dotted, decimal, hex, octal, short forms (the URL parser reads them all as the
// same IPv4 address), IPv4-mapped and IPv4-compatible IPv6, NAT64.
export const refusedNotations = [
	'http://169.254.169.254/latest/meta-data',
	'http://2852039166/latest/meta-data', // 169.254.169.254 as one decimal number
	'http://0xa9fea9fe/latest/meta-data', // … as one hex number
	'http://0251.0376.0251.0376/latest/meta-data', // … in octal
	'http://0xa9.0xfe.0xa9.0xfe/latest/meta-data', // … hex per part
	'http://169.254.43518/latest/meta-data', // … short form
	'http://[::ffff:169.254.169.254]/latest/meta-data',
	'http://[::ffff:a9fe:a9fe]/latest/meta-data',
	'http://[::a9fe:a9fe]/hook', // IPv4-compatible 169.254.169.254
	'http://[64:ff9b::a9fe:a9fe]/hook', // NAT64 of 169.254.169.254
	'http://[fd00:ec2::254]/latest/meta-data', // the IPv6 metadata address
	'http://10.0.0.5/hook',
	'http://167772165/hook', // 10.0.0.5 as one number
	'http://012.0.0.5/hook', // … octal first part
	'http://10.5/hook', // 10.0.0.5 short form
	'http://192.168.1.10/hook',
	'http://172.16.0.1/hook',
	'http://100.64.0.1/hook',
	'http://0.0.0.0/hook',
	'http://0/hook',
	'http://[::]/hook',
	'http://[fd00::1]/hook',
	'http://[fe80::1]/hook',
	'http://[::ffff:10.0.0.5]/hook',
	'http://[::ffff:a00:5]/hook',
	'http://[::a00:5]/hook', // IPv4-compatible 10.0.0.5
	'http://203.0.113.9/hook',
	'http://198.18.0.1/hook',
	'http://224.0.0.1/hook',
	'http://255.255.255.255/hook',
]
