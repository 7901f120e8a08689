//! Shards: which inputs of a list one process of a batch job takes.
//!
//! A shard is a deterministic, coordination-free stride over the inputs in
//! their listed order: shard `I` of `N` takes the inputs whose 0-based
//! position `p` has `p % N == I`. Every process of an array job computes
//! its own share from its index alone; together the shards cover every
//! input exactly once, and strides spread a crawl's segments evenly.
//!
//! The index and count come from `--shard I/N`, or from the scheduler
//! (`--shard auto`): Slurm job arrays, AWS Batch array jobs and Kubernetes
//! indexed jobs (whose count is not in the environment: `--shard-count`).

use std::fmt;

/// One shard of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 0-based, below `count`.
    pub index: u64,
    /// At least 1.
    pub count: u64,
}

/// Why no shard could be determined.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ShardError {
    /// `I/N` that is not two numbers.
    Syntax(String),
    /// A count of 0.
    ZeroCount,
    /// An index not below the count.
    OutOfRange {
        /// The index.
        index: u64,
        /// The count.
        count: u64,
    },
    /// A scheduler's variable that is not a non-negative integer.
    BadVariable {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
    },
    /// A scheduler's variable that must be set is not.
    MissingVariable {
        /// The scheduler.
        scheduler: &'static str,
        /// The variable.
        name: &'static str,
    },
    /// A Slurm task ID that is not on its array's grid.
    OffGrid {
        /// `SLURM_ARRAY_TASK_ID`.
        id: u64,
        /// `SLURM_ARRAY_TASK_MIN`.
        min: u64,
        /// `SLURM_ARRAY_TASK_STEP`.
        step: u64,
    },
    /// `--shard-count` contradicts AWS Batch's array size.
    CountContradicts {
        /// `--shard-count`.
        count: u64,
        /// `AWS_BATCH_JOB_ARRAY_SIZE`.
        size: u64,
    },
    /// A Kubernetes indexed job without `--shard-count`.
    KubernetesNeedsCount,
    /// `--shard auto` outside an array job.
    NoScheduler,
    /// A scheduler's values that make no shard.
    Scheduler {
        /// The scheduler.
        scheduler: &'static str,
        /// Why.
        error: Box<ShardError>,
    },
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShardError::Syntax(text) => {
                write!(f, "'{text}' is not a shard: expected I/N, like 3/100")
            }
            ShardError::ZeroCount => f.write_str("the shard count must be at least 1"),
            ShardError::OutOfRange { index, count } => write!(
                f,
                "shard index {index} is out of range for {count} shards (0 to {})",
                count - 1
            ),
            ShardError::BadVariable { name, value } => {
                write!(f, "{name}={value:?} is not a non-negative integer")
            }
            ShardError::MissingVariable { scheduler, name } => {
                write!(f, "{scheduler}: {name} is not set")
            }
            ShardError::OffGrid { id, min, step } => write!(
                f,
                "Slurm: task ID {id} is not on the array's grid (min {min}, step {step})"
            ),
            ShardError::CountContradicts { count, size } => write!(
                f,
                "--shard-count {count} contradicts AWS Batch's array size of {size}"
            ),
            ShardError::KubernetesNeedsCount => f.write_str(
                "Kubernetes: JOB_COMPLETION_INDEX is set, but a Job does not tell its \
                 completions count: give it with --shard-count N",
            ),
            ShardError::NoScheduler => f.write_str(
                "--shard auto: no scheduler's array index in the environment \
                 (SLURM_ARRAY_TASK_ID, AWS_BATCH_JOB_ARRAY_INDEX or JOB_COMPLETION_INDEX); \
                 outside an array job, give --shard I/N",
            ),
            ShardError::Scheduler { scheduler, error } => write!(f, "{scheduler}: {error}"),
        }
    }
}

impl std::error::Error for ShardError {}

impl Shard {
    /// Shard `index` of `count`.
    pub fn new(index: u64, count: u64) -> Result<Shard, ShardError> {
        if count == 0 {
            return Err(ShardError::ZeroCount);
        }
        if index >= count {
            return Err(ShardError::OutOfRange { index, count });
        }
        Ok(Shard { index, count })
    }

    /// Parses `I/N`.
    pub fn parse(text: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError::Syntax(text.to_owned());
        let (i, n) = text.split_once('/').ok_or_else(bad)?;
        let i = i.trim().parse().map_err(|_| bad())?;
        let n = n.trim().parse().map_err(|_| bad())?;
        Shard::new(i, n)
    }

    /// The shard a scheduler gave this process, from its environment
    /// (`var` looks a variable up): a Slurm array task, an AWS Batch array
    /// child, or a Kubernetes indexed-job pod. `count` is `--shard-count`:
    /// required for Kubernetes; for Slurm it makes the task ID the shard
    /// index (without it, the index is the task's position in the array
    /// and the count the array's size); for AWS Batch it must agree with
    /// the array's size.
    pub fn from_env(
        var: impl Fn(&str) -> Option<String>,
        count: Option<u64>,
    ) -> Result<Shard, ShardError> {
        let number = |name: &'static str| -> Result<Option<u64>, ShardError> {
            match var(name) {
                None => Ok(None),
                Some(value) => value
                    .trim()
                    .parse()
                    .map(Some)
                    .map_err(|_| ShardError::BadVariable { name, value }),
            }
        };
        let required = |name: &'static str, scheduler: &'static str| -> Result<u64, ShardError> {
            number(name)?.ok_or(ShardError::MissingVariable { scheduler, name })
        };
        let of = |scheduler: &'static str| {
            move |error| ShardError::Scheduler {
                scheduler,
                error: Box::new(error),
            }
        };
        if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
            if let Some(n) = count {
                // The count is fixed: the task ID is the shard index, so
                // that failed tasks can be resubmitted alone
                // (--array=7,12) and still take their own inputs.
                return Shard::new(id, n).map_err(of("Slurm"));
            }
            // The array is the whole job. It need not start at 0 nor step
            // by 1: --array=3-11:2 has IDs 3, 5, ..., 11, and the index
            // is (ID - MIN) / STEP.
            let min = required("SLURM_ARRAY_TASK_MIN", "Slurm")?;
            let step = number("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1);
            let tasks = required("SLURM_ARRAY_TASK_COUNT", "Slurm")?;
            if step == 0 || id < min || (id - min) % step != 0 {
                return Err(ShardError::OffGrid { id, min, step });
            }
            return Shard::new((id - min) / step, tasks).map_err(of("Slurm"));
        }
        if let Some(index) = number("AWS_BATCH_JOB_ARRAY_INDEX")? {
            let size = required("AWS_BATCH_JOB_ARRAY_SIZE", "AWS Batch")?;
            if let Some(count) = count.filter(|&n| n != size) {
                return Err(ShardError::CountContradicts { count, size });
            }
            return Shard::new(index, size).map_err(of("AWS Batch"));
        }
        if let Some(index) = number("JOB_COMPLETION_INDEX")? {
            let Some(n) = count else {
                return Err(ShardError::KubernetesNeedsCount);
            };
            return Shard::new(index, n).map_err(of("Kubernetes"));
        }
        Err(ShardError::NoScheduler)
    }

    /// Whether this shard takes the input at 0-based `position`.
    pub fn takes(&self, position: usize) -> bool {
        position as u64 % self.count == self.index
    }

    /// This shard's share of `items`, in their order.
    pub fn select<T>(&self, items: impl IntoIterator<Item = T>) -> Vec<T> {
        items
            .into_iter()
            .enumerate()
            .filter(|(p, _)| self.takes(*p))
            .map(|(_, item)| item)
            .collect()
    }

    /// The shard's name in file names: `shard-00003-of-00100`. Names of
    /// one count sort by index.
    pub fn name(&self) -> String {
        format!("shard-{:05}-of-{:05}", self.index, self.count)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn parse_and_stride() {
        let s = Shard::parse("1/3").unwrap();
        assert_eq!(s, Shard { index: 1, count: 3 });
        assert_eq!(s.select(0..10), vec![1, 4, 7]);
        assert_eq!(s.to_string(), "1/3");
        assert_eq!(s.name(), "shard-00001-of-00003");
        for bad in ["3/3", "1/0", "1", "a/2", "-1/2", "1/2/3", ""] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        // The shards of a count cover every input exactly once.
        let mut all: Vec<usize> = (0..4)
            .flat_map(|i| Shard::new(i, 4).unwrap().select(0..23))
            .collect();
        all.sort();
        assert_eq!(all, (0..23).collect::<Vec<_>>());
    }

    #[test]
    fn slurm_arrays_need_not_start_at_zero() {
        // sbatch --array=3-11:2 -> IDs 3 5 7 9 11, COUNT 5.
        let vars = |id: &str| {
            env(&[
                ("SLURM_ARRAY_TASK_ID", id),
                ("SLURM_ARRAY_TASK_MIN", "3"),
                ("SLURM_ARRAY_TASK_MAX", "11"),
                ("SLURM_ARRAY_TASK_STEP", "2"),
                ("SLURM_ARRAY_TASK_COUNT", "5"),
            ])
        };
        for (id, index) in [("3", 0), ("5", 1), ("11", 4)] {
            assert_eq!(
                Shard::from_env(vars(id), None).unwrap(),
                Shard { index, count: 5 }
            );
        }
        assert!(Shard::from_env(vars("4"), None).is_err());
        assert!(Shard::from_env(vars("1"), None).is_err());
        assert!(Shard::from_env(vars("13"), None).is_err());
        // With a fixed count, the ID is the index: a resubmission of
        // --array=7 alone is still shard 7.
        let resubmitted = env(&[
            ("SLURM_ARRAY_TASK_ID", "7"),
            ("SLURM_ARRAY_TASK_MIN", "7"),
            ("SLURM_ARRAY_TASK_COUNT", "1"),
        ]);
        assert_eq!(
            Shard::from_env(&resubmitted, Some(10)).unwrap(),
            Shard {
                index: 7,
                count: 10
            }
        );
        assert!(Shard::from_env(&resubmitted, Some(7)).is_err());
        // Without a step variable (older Slurm), the step is 1.
        let plain = env(&[
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert_eq!(
            Shard::from_env(plain, None).unwrap(),
            Shard { index: 2, count: 4 }
        );
        let no_count = env(&[("SLURM_ARRAY_TASK_ID", "2"), ("SLURM_ARRAY_TASK_MIN", "0")]);
        assert!(
            Shard::from_env(no_count, None)
                .unwrap_err()
                .to_string()
                .contains("SLURM_ARRAY_TASK_COUNT")
        );
    }

    #[test]
    fn aws_batch_and_kubernetes() {
        let aws = env(&[
            ("AWS_BATCH_JOB_ARRAY_INDEX", "7"),
            ("AWS_BATCH_JOB_ARRAY_SIZE", "10"),
        ]);
        assert_eq!(
            Shard::from_env(aws, None).unwrap(),
            Shard {
                index: 7,
                count: 10
            }
        );
        let aws_out = env(&[
            ("AWS_BATCH_JOB_ARRAY_INDEX", "10"),
            ("AWS_BATCH_JOB_ARRAY_SIZE", "10"),
        ]);
        assert!(Shard::from_env(aws_out, None).is_err());

        let k8s = || env(&[("JOB_COMPLETION_INDEX", "2")]);
        assert_eq!(
            Shard::from_env(k8s(), Some(3)).unwrap(),
            Shard { index: 2, count: 3 }
        );
        assert!(
            Shard::from_env(k8s(), None)
                .unwrap_err()
                .to_string()
                .contains("--shard-count")
        );
        assert!(Shard::from_env(k8s(), Some(2)).is_err());
    }

    #[test]
    fn no_scheduler_is_an_error_not_a_guess() {
        let err = Shard::from_env(env(&[]), Some(4)).unwrap_err();
        assert!(err.to_string().contains("--shard I/N"), "{err}");
        let garbage = env(&[("SLURM_ARRAY_TASK_ID", "x")]);
        assert!(Shard::from_env(garbage, None).is_err());
    }
}
