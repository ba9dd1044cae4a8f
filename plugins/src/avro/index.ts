/** The avro family. Importing this module registers its components. */
import './avro-processor.js';
