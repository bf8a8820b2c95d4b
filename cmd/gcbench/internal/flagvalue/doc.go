// Package flagvalue holds gcbench's typed command-line flag values:
// pflag.Value implementations that check a value while parsing it, so
// that pflag reports a refused one against its flag, and whose error says
// what the flag accepts:
//
//	invalid argument "shout" for "--wake" flag: want broadcast, signal, targeted or spin
//
// Every value here guarantees:
//   - its constructor stores the default in the destination, so that
//     --help shows it, as String spells it;
//   - Set checks the whole argument before it stores anything: a refused
//     argument leaves the destination as it was;
//   - String spells the destination as Set accepts it;
//   - Set's error names what the flag wants: an enumeration's names (from
//     the enumeration's own list, never typed again), a number's bounds, a
//     size's or a shard's form.
//
// Names are read trimmed and case-insensitive; a list is comma-separated,
// with no empty item and none twice.
package flagvalue
