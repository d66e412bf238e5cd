import { destinationNotAllowed, isPrivateAddress, networkErrorMessage } from './safe-http';

describe('isPrivateAddress', () => {
  it.each([
    // IPv4: loopback, private, CGNAT, link-local (metadata), this-network, multicast, reserved
    ['127.0.0.1', 'IPv4 loopback'],
    ['127.255.255.254', 'IPv4 loopback, top of the range'],
    ['10.0.0.7', 'RFC 1918'],
    ['172.16.0.1', 'RFC 1918'],
    ['172.31.255.255', 'RFC 1918'],
    ['192.168.1.1', 'RFC 1918'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['169.254.169.254', 'cloud metadata'],
    ['0.0.0.0', 'this network'],
    ['192.0.0.8', 'IETF protocol assignments'],
    ['198.18.0.1', 'benchmarking'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    // IPv6
    ['::1', 'IPv6 loopback'],
    ['::', 'unspecified'],
    ['fc00::1', 'unique local'],
    ['fd12:3456::1', 'unique local'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local with a zone id'],
    ['fec0::1', 'site-local (deprecated)'],
    ['ff02::1', 'multicast'],
    ['100::1', 'discard-only'],
    // IPv4-compatible (::/96): refused whatever it embeds
    ['::7f00:1', 'IPv4-compatible loopback'],
    ['::127.0.0.1', 'IPv4-compatible loopback, dotted'],
    ['::808:808', 'IPv4-compatible public address'],
    ['::8.8.8.8', 'IPv4-compatible public address, dotted'],
    // NAT64: refused whatever it embeds (the translator may sit inside the network)
    ['64:ff9b::a00:1', 'NAT64 well-known prefix'],
    ['64:ff9b::8.8.8.8', 'NAT64 well-known prefix with a public address'],
    ['64:ff9b:1::1', 'NAT64 local-use prefix'],
    ['64:ff9b:1:ffff::a00:1', 'NAT64 local-use prefix, far end'],
    // Teredo: the IPv4 address is obfuscated and reached through a relay
    ['2001:0:a00:1::', 'Teredo'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo, written out'],
    // IPv4-mapped, IPv4-translated and 6to4 are judged by the IPv4 address they embed
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback, dotted'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped metadata, hex'],
    ['::ffff:192.168.0.1', 'IPv4-mapped private'],
    ['0:0:0:0:0:ffff:0a00:0001', 'IPv4-mapped private, written out'],
    ['::ffff:0:a00:1', 'IPv4-translated private'],
    ['2002:7f00:1::1', '6to4 of loopback'],
    ['2002:c0a8:101::', '6to4 of a private address'],
    // not an address at all
    ['localhost', 'a name'],
    ['', 'empty'],
  ])('refuses %s (%s)', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    ['8.8.8.8', 'public IPv4'],
    ['1.1.1.1', 'public IPv4'],
    ['203.0.113.10', 'documentation range, routed like any public address here'],
    ['172.32.0.1', 'just past RFC 1918'],
    ['100.128.0.1', 'just past CGNAT'],
    ['2606:4700:4700::1111', 'public IPv6'],
    ['2001:4860:4860::8888', 'public IPv6'],
    ['::ffff:8.8.8.8', 'IPv4-mapped public, dotted'],
    ['::ffff:808:808', 'IPv4-mapped public, hex'],
    ['::ffff:0:808:808', 'IPv4-translated public'],
    ['2002:808:808::1', '6to4 of a public address'],
    ['64:ff9a::1', 'next to the NAT64 prefix'],
    ['64:ff9b:2::1', 'next to the NAT64 local-use prefix'],
    ['2001:1::1', 'next to the Teredo prefix'],
  ])('allows %s (%s)', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});

describe('destinationNotAllowed', () => {
  it('names the host as given and nothing else', () => {
    expect(destinationNotAllowed('internal.example')).toBe(
      'refusing to connect to internal.example: destination not allowed',
    );
  });
});

describe('networkErrorMessage', () => {
  const err = (message: string, code?: string) => Object.assign(new Error(message), { code });

  it.each([
    [err('connect ECONNREFUSED 10.0.0.5:443', 'ECONNREFUSED'), 'connection refused (ECONNREFUSED)'],
    [err('read ECONNRESET 10.0.0.5:443', 'ECONNRESET'), 'connection reset (ECONNRESET)'],
    [err('connect ETIMEDOUT 192.168.1.9:443', 'ETIMEDOUT'), 'connection timed out (ETIMEDOUT)'],
    [err('connect EHOSTUNREACH fd00::7:443', 'EHOSTUNREACH'), 'host unreachable (EHOSTUNREACH)'],
    [err('getaddrinfo ENOTFOUND db.internal', 'ENOTFOUND'), 'host name not found (ENOTFOUND)'],
    [
      err('connect EADDRNOTAVAIL 10.0.0.5:443', 'EADDRNOTAVAIL'),
      'connection failed (EADDRNOTAVAIL)',
    ],
    [err('something at 10.0.0.5'), 'connection failed'],
  ])('describes %s without the address', (error, expected) => {
    expect(networkErrorMessage(error)).toBe(expected);
  });

  it.each([
    ['self-signed certificate', 'DEPTH_ZERO_SELF_SIGNED_CERT'],
    ['certificate has expired', 'CERT_HAS_EXPIRED'],
    ['unable to verify the first certificate', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'],
  ])('keeps the TLS message %j, which names no address', (message, code) => {
    expect(networkErrorMessage(err(message, code))).toBe(message);
  });
});
