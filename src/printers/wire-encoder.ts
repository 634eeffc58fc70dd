// The one place framed lines become the bytes written to a printer's link: plain text here; a packing stage (MeatPack)
// replaces it per printer without the protocol core or the transport knowing.

/** Turns what the protocol core wrote (framed lines `N<n> cmd*cs\n`, or a raw emergency command) into link bytes. */
export interface WireEncoder {
  encode(framed: string): Buffer;
}

/** The lines as they are: G-code is ASCII, one byte a character. */
export const plainWire: WireEncoder = {
  encode: (framed) => Buffer.from(framed, 'latin1'),
};
