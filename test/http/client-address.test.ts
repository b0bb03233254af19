// How a request's client address is read and the key it is counted under (src/http/client-address.ts).

import { describe, expect, it } from "vitest";
import { addressKey, headerAddress, socketAddress } from "../../src/http/client-address.js";

describe("client address", () => {
  it("reads the socket's peer address from Node's and Deno's server env alike", () => {
    expect(socketAddress({ incoming: { socket: { remoteAddress: "192.0.2.1" } } })).toBe("192.0.2.1");
    expect(socketAddress({ remoteAddr: { transport: "tcp", hostname: "192.0.2.2", port: 5 } })).toBe(
      "192.0.2.2",
    );
    expect(socketAddress(undefined)).toBeNull();
    expect(socketAddress({})).toBeNull();
  });

  it("takes a trusted header's right-most entry, which the nearest proxy wrote", () => {
    expect(headerAddress("198.51.100.1")).toBe("198.51.100.1");
    expect(headerAddress("203.0.113.9, 198.51.100.1")).toBe("198.51.100.1");
    expect(headerAddress(" , ")).toBeNull();
    expect(headerAddress(undefined)).toBeNull();
  });

  it("counts IPv4 by address, IPv4-mapped IPv6 as IPv4, and IPv6 by its /64", () => {
    expect(addressKey("192.0.2.7")).toBe("192.0.2.7");
    expect(addressKey("::ffff:192.0.2.7")).toBe("192.0.2.7");
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:0DB8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(addressKey("[2001:db8::1]")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(addressKey("::ffff:1.2.3.4:5")).toBe("::ffff:1.2.3.4:5");
  });
});
