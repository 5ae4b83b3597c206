//! Sentences found as the index of their structure: for a tool that scans
//! with a spec's structures but has no types generated from them (the
//! generator, when it scans a spec's envelope back, P149). A
//! [`StructureScan`]'s parse function is a plain function pointer, so the
//! index is a const parameter: one function per index, up to
//! [`MAX_INDEXED`] structures.

use super::*;

/// The most structures a scanner of indexes tells apart.
pub const MAX_INDEXED: usize = 64;

/// A parse function that finds every sentence of its structure as `N`.
fn found_as<const N: usize>(_: &dyn Groups<'_>) -> Result<usize, ParseError> {
    Ok(N)
}

type FoundAs = for<'t> fn(&dyn Groups<'t>) -> Result<usize, ParseError>;

macro_rules! table {
    ($($n:literal)*) => { [$(found_as::<$n> as FoundAs),*] };
}

const FOUND_AS: [FoundAs; MAX_INDEXED] = table!(
    0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
    32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
);

/// The parse function ([`StructureScan::from_groups`]) of the structure at
/// `index` of a scanner of indexes: it finds each sentence of that structure
/// as `index`. `None` from [`MAX_INDEXED`] on.
pub fn found_as_index(index: usize) -> Option<FoundAs> {
    FOUND_AS.get(index).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_index_finds_itself() {
        let re = regex::Regex::new("x").unwrap();
        let groups = re.captures("x").unwrap();
        for i in 0..MAX_INDEXED {
            assert_eq!(found_as_index(i).unwrap()(&groups).unwrap(), i);
        }
        assert!(found_as_index(MAX_INDEXED).is_none());
    }
}
