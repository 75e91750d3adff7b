#!/usr/bin/env python3
"""Set up a moto_server started with INITIAL_NO_AUTH_ACTION_COUNT=4 for the
http sink's S3 tests: an IAM user with an s3:* policy and an access key
(the 4 unauthenticated actions), then a bucket created with that key.

usage: http_moto_setup.py ENDPOINT BUCKET   prints "KEY_ID SECRET"
       http_moto_setup.py --get ENDPOINT BUCKET PREFIX KEY_ID SECRET OUT
           concatenates the objects under PREFIX in key order into OUT and
           prints one line per object: "KEY SIZE"
"""
import json
import sys

import boto3

REGION = 'us-east-1'


def client(service, endpoint, key_id='x', secret='x'):
    return boto3.client(service, endpoint_url=endpoint, region_name=REGION,
                        aws_access_key_id=key_id, aws_secret_access_key=secret)


def setup(endpoint, bucket):
    iam = client('iam', endpoint)
    iam.create_user(UserName='perfsink')
    policy = iam.create_policy(PolicyName='s3all', PolicyDocument=json.dumps({
        'Version': '2012-10-17',
        'Statement': [{'Effect': 'Allow', 'Action': 's3:*', 'Resource': '*'}]}))
    iam.attach_user_policy(UserName='perfsink', PolicyArn=policy['Policy']['Arn'])
    key = iam.create_access_key(UserName='perfsink')['AccessKey']
    s3 = client('s3', endpoint, key['AccessKeyId'], key['SecretAccessKey'])
    s3.create_bucket(Bucket=bucket)
    print(key['AccessKeyId'], key['SecretAccessKey'])


def get(endpoint, bucket, prefix, key_id, secret, out):
    s3 = client('s3', endpoint, key_id, secret)
    keys = []
    # moto 5.2 rejects the signature of a listing with a '/' in Prefix: filter here.
    for page in s3.get_paginator('list_objects_v2').paginate(Bucket=bucket):
        keys += [(o['Key'], o['Size']) for o in page.get('Contents', []) if o['Key'].startswith(prefix)]
    keys.sort()
    with open(out, 'wb') as f:
        for k, size in keys:
            f.write(s3.get_object(Bucket=bucket, Key=k)['Body'].read())
            print(k, size)


if sys.argv[1] == '--get':
    get(*sys.argv[2:8])
else:
    setup(*sys.argv[1:3])
