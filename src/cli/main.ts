/** The terminal's entry (bin/run.js): oclif's own run, from the copy the bundle's commands are built on. */
export {execute} from '@oclif/core'
