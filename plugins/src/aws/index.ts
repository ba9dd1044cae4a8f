/**
 * The aws family, on the AWS SDK v3 clients: the `aws_sqs` input and output, the `aws_sns`
 * output, the `aws_s3` input and output, the `aws_kinesis` input and output, and the `aws_dynamodb`
 * output and cache. Importing this module registers them; each loads its SDK client at its first
 * connect.
 */
import './sqs-input.js';
import './sqs-output.js';
import './sns-output.js';
import './s3-input.js';
import './s3-output.js';
import './kinesis-input.js';
import './kinesis-output.js';
import './dynamodb-output.js';
import './dynamodb-cache.js';

export {};
